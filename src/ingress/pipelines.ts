/**
 * GET /v1/pipelines/{namespace}/{name}: the verified view of one pipeline, for bearer JWTs
 * whose `pipelines` claim covers it. Out-of-scope and nonexistent answer the same 404; one the
 * gateway holds but has not evaluated yet answers 503 NotEvaluated (only to a caller it covers).
 */
import type { FastifyPluginCallback } from 'fastify';
import { authenticateBearer, coversPipeline, type AuthSettings } from '../auth/authenticate.js';
import { GatewayError } from './http-errors.js';
import { pipelineId, type PipelineId } from '../pipeline/id.js';
import type { PipelineView } from '../reconcile/view.js';
import { callerOf } from './authenticated.js';
import { SchemaRefs } from './route-schemas.js';
import type { PipelineParamsSchema } from '../shapes/routes.js';
import type { Static } from 'typebox';

/** The read side of the pipeline registry. */
export interface PipelineViewSource {
  /** The pipeline's view, or undefined when the gateway does not know it. */
  view(id: PipelineId): PipelineView | undefined;
  /** Whether the gateway holds the Pipeline, evaluated or not yet (absent: judged by view). */
  holds?(id: PipelineId): boolean;
}

/**
 * Retry-After of a NotEvaluated answer: a Pipeline loaded but not yet evaluated (right after a
 * start, or while the management API is down) is evaluated within a check's time.
 */
const NOT_EVALUATED_RETRY_S = 1;

/** What the pipelines route needs. */
export interface PipelinesRouteOptions {
  auth: AuthSettings;
  pipelines: PipelineViewSource;
}

type Params = Static<typeof PipelineParamsSchema>;

/** Registers GET /v1/pipelines/:namespace/:name; needs installAuthentication on its scope. */
export const pipelineRoutes: FastifyPluginCallback<PipelinesRouteOptions> = (
  app,
  options,
  done,
) => {
  const { auth, pipelines } = options;

  app.get<{ Params: Params }>('/v1/pipelines/:namespace/:name', {
    schema: { params: { $ref: SchemaRefs.pipelineParams } },
    attachValidation: true,
    config: {
      door: 'pipelines-api',
      authenticate: (request) => authenticateBearer(request.headers, auth),
    },
    handler: async (request, reply) => {
      const identity = callerOf(request);
      const { namespace, name } = request.params;
      // A path that is no Kubernetes name cannot name a pipeline: the same 404 as any other.
      const covered =
        request.validationError === undefined && coversPipeline(identity, namespace, name);
      const id = pipelineId({ namespace, name });
      const view = covered ? pipelines.view(id) : undefined;
      // A Pipeline that exists is never denied: one not evaluated yet asks for a retry.
      if (view === undefined && covered && pipelines.holds?.(id) === true)
        throw new GatewayError('NotEvaluated', undefined, {
          retryAfterSeconds: NOT_EVALUATED_RETRY_S,
        });
      if (view === undefined) throw new GatewayError('NotFound');
      return reply.code(200).send(view);
    },
  });
  done();
};
