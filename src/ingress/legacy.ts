/**
 * POST /promotion/{namespace}/{name}/{env}: the weave pipeline-controller webhook, kept as a
 * hint only. It is signed like Flux generic-hmac with the Pipeline's `hmac-key` Secret (read
 * ahead, never at request time), checked in constant time; no key means 401, never "open".
 * The env segment and body are not trusted: every target of the Pipeline gets a hint.
 */
import type { FastifyPluginCallback, FastifyRequest } from 'fastify';
import { authenticateLegacy } from '../auth/authenticate.js';
import type { LegacyKeyResolver } from '../auth/legacy-keys.js';
import type { Identity } from '../auth/identity.js';
import type { Checked } from '../auth/refusal.js';
import { GatewayError } from './http-errors.js';
import type { RecheckResult } from '../hints/sinks.js';
import { pipelineId, type PipelineId } from '../pipeline/id.js';
import { callerOf } from './authenticated.js';
import { rawBodyOf } from './context.js';
import { QUEUE_FULL_RETRY_AFTER_SECONDS } from './flux-event-routes.js';
import { SchemaRefs } from './route-schemas.js';
import type { EnvironmentParamsSchema } from '../shapes/routes.js';
import type { Static } from 'typebox';

/** Offers a hint for every target of a Pipeline; 'unknown' when it is not loaded. */
export type PipelineHinter = (id: PipelineId) => RecheckResult;

/** What the legacy route needs. */
export interface LegacyRouteOptions {
  legacyKeys: LegacyKeyResolver;
  hintPipeline: PipelineHinter;
}

type Params = Static<typeof EnvironmentParamsSchema>;

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const DNS_SUBDOMAIN =
  /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** True when namespace/name are valid Kubernetes names (anything else cannot exist). */
function isPipelineRef(namespace: string, name: string): boolean {
  return DNS_LABEL.test(namespace) && DNS_SUBDOMAIN.test(name);
}

/**
 * The caller of a legacy route (`:namespace/:name` in its path) whose HMAC over the body
 * verifies with that Pipeline's hmac-key, or the refusal saying why not.
 */
export function legacyCaller(
  request: FastifyRequest,
  legacyKeys: LegacyKeyResolver,
): Checked<Identity> {
  const { namespace, name } = request.params as { namespace: string; name: string };
  // Invalid names skip the Secret lookup but not the HMAC work: they fail like a bad signature.
  const valid = isPipelineRef(namespace, name);
  const key = valid ? legacyKeys(pipelineId({ namespace, name })) : undefined;
  return authenticateLegacy(request.headers, rawBodyOf(request), { namespace, name }, key);
}

/** Registers POST /promotion/:namespace/:name/:env; needs installAuthentication on its scope. */
export const legacyRoutes: FastifyPluginCallback<LegacyRouteOptions> = (app, options, done) => {
  const { legacyKeys, hintPipeline } = options;

  app.post<{ Params: Params }>('/promotion/:namespace/:name/:env', {
    schema: { params: { $ref: SchemaRefs.environmentParams } },
    attachValidation: true,
    config: {
      door: 'legacy-webhook',
      authenticate: (request) => Promise.resolve(legacyCaller(request, legacyKeys)),
    },
    handler: async (request, reply) => {
      const { subject } = callerOf(request);
      // A hint per target, like events: coalesced and spaced, so a burst costs a few reads.
      const result = hintPipeline(pipelineId(request.params));
      if (result === 'full') {
        request.log.warn({ subject }, 'pipeline queue full');
        throw new GatewayError('QueueFull', undefined, {
          retryAfterSeconds: QUEUE_FULL_RETRY_AFTER_SECONDS,
        });
      }
      request.log.info({ subject }, 'legacy webhook accepted');
      return reply.code(202).send({ accepted: true });
    },
  });
  done();
};
