/**
 * POST /promotion/{namespace}/{name}/{env}: the weave pipeline-controller webhook, kept as a
 * hint only. It is signed like Flux generic-hmac with the Pipeline's `hmac-key` Secret, checked
 * in constant time; no key means 401, never "open". The env segment and body are not trusted.
 */
import type { FastifyPluginCallback } from 'fastify';
import { authenticateLegacy } from '../auth/authenticate.js';
import type { LegacyKeyResolver } from '../auth/legacy-keys.js';
import { GatewayError } from '../errors.js';
import type { PipelineTrigger } from '../hints/types.js';
import { pipelineId } from '../pipeline/id.js';
import { callerOf } from './authenticated.js';
import { rawBodyOf } from './context.js';
import { QUEUE_FULL_RETRY_AFTER_SECONDS } from './events.js';
import { SchemaRefs } from './schemas.js';

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

/** Registers POST /promotion/:namespace/:name/:env; needs installAuthentication on its scope. */
export const legacyRoutes: FastifyPluginCallback<LegacyRouteOptions> = (app, options, done) => {
  const { legacyKeys, pipelines } = options;

  app.post<{ Params: Params }>('/promotion/:namespace/:name/:env', {
    schema: { params: { $ref: SchemaRefs.environmentParams } },
    attachValidation: true,
    config: {
      authenticate: async (request) => {
        const { namespace, name } = request.params as Params;
        // Invalid names skip the Secret lookup but not the HMAC work: they fail like a bad signature.
        const valid = isPipelineRef(namespace, name);
        const key = valid ? await legacyKeys(pipelineId({ namespace, name })) : undefined;
        return authenticateLegacy(request.headers, rawBodyOf(request), { namespace, name }, key);
      },
    },
    handler: async (request, reply) => {
      const { subject } = callerOf(request);
      const result = pipelines.requestPipeline(pipelineId(request.params), 'legacy-webhook');
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
