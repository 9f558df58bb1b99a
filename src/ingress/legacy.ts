/**
 * POST /promotion/{namespace}/{name}/{env}: the weave pipeline-controller webhook, kept as a
 * hint only. It is signed like Flux generic-hmac with the Pipeline's `hmac-key` Secret, checked
 * in constant time; no key means 401, never "open". The env segment and body are not trusted.
 */
import type { FastifyPluginCallback, FastifyRequest } from 'fastify';
import { authenticateLegacy } from '../auth/authenticate.js';
import { GatewayError } from '../errors.js';
import type { PipelineTrigger } from '../hints/types.js';
import { rawBodyOf, requireIdentity } from './context.js';
import { QUEUE_FULL_RETRY_AFTER_SECONDS } from './events.js';

/** Resolves a Pipeline's legacy `hmac-key` Secret value; undefined when it has none. */
export type LegacyKeyResolver = (
  namespace: string,
  pipeline: string,
) => Promise<Buffer | undefined>;

/** What the legacy route needs. */
export interface LegacyRouteOptions {
  legacyKeys: LegacyKeyResolver;
  pipelines: PipelineTrigger;
}

interface Params {
  namespace: string;
  name: string;
  env: string;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const DNS_SUBDOMAIN =
  /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** True when namespace/name are valid Kubernetes names (anything else cannot exist). */
export function isPipelineRef(namespace: string, name: string): boolean {
  return DNS_LABEL.test(namespace) && DNS_SUBDOMAIN.test(name);
}

/** Registers POST /promotion/:namespace/:name/:env. */
export const legacyRoutes: FastifyPluginCallback<LegacyRouteOptions> = (app, options, done) => {
  const { legacyKeys, pipelines } = options;

  app.post<{ Params: Params }>('/promotion/:namespace/:name/:env', {
    preValidation: async (request: FastifyRequest<{ Params: Params }>) => {
      const { namespace, name } = request.params;
      // Invalid names skip the Secret lookup but not the HMAC work: they fail like a bad signature.
      const key = isPipelineRef(namespace, name) ? await legacyKeys(namespace, name) : undefined;
      request.identity = authenticateLegacy(
        request.headers,
        rawBodyOf(request),
        { namespace, name },
        key,
      );
    },
    handler: async (request, reply) => {
      const identity = requireIdentity(request);
      const { namespace, name } = request.params;
      const result = pipelines.requestPipeline(namespace, name, 'legacy-webhook');
      if (result === 'full') {
        request.log.warn({ subject: identity.subject }, 'pipeline queue full');
        throw new GatewayError('QueueFull', undefined, {
          retryAfterSeconds: QUEUE_FULL_RETRY_AFTER_SECONDS,
        });
      }
      request.log.info({ subject: identity.subject }, 'legacy webhook accepted');
      return reply.code(202).send({ accepted: true });
    },
  });
  done();
};
