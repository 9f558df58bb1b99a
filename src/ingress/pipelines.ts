/**
 * GET /v1/pipelines/{namespace}/{name}: the verified view of one pipeline, for bearer JWTs
 * whose `pipelines` claim covers it. Out-of-scope and nonexistent answer the same 404; one the
 * gateway holds but has not evaluated yet answers 503 NotEvaluated (only to a caller it covers).
 * GET .../environments/{env}/preview: the change its pending promotion would make, under the
 * same rules; read only once the caller is authenticated and covered.
 */
import type { FastifyPluginCallback } from 'fastify';
import { coversPipeline, type AuthSettings } from '../auth/authenticate.js';
import { GatewayError } from './http-errors.js';
import { pipelineId, type PipelineId } from '../pipeline/id.js';
import type { PipelineView } from '../reconcile/view.js';
import { callerOf, readApiDoor } from './authenticated.js';
import { SchemaRefs } from './route-schemas.js';
import type { EnvironmentParamsSchema, PipelineParamsSchema } from '../shapes/routes.js';
import type { PreviewAnswer } from '../preview/pipeline-previews.js';
import type { Static } from 'typebox';

/** The read side of the pipeline registry. */
export interface PipelineViewSource {
  /** The pipeline's view, or undefined when the gateway does not know it. */
  view(id: PipelineId): PipelineView | undefined;
  /** Whether the gateway holds the Pipeline, evaluated or not yet (absent: judged by view). */
  holds?(id: PipelineId): boolean;
  /** The preview of an environment's pending promotion; absent: the route is not served. */
  preview?(id: PipelineId, environment: string): Promise<PreviewAnswer>;
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
type EnvParams = Static<typeof EnvironmentParamsSchema>;

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
    config: readApiDoor(auth),
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

  const preview = pipelines.preview?.bind(pipelines);
  if (preview !== undefined) {
    app.get<{ Params: EnvParams }>('/v1/pipelines/:namespace/:name/environments/:env/preview', {
      schema: { params: { $ref: SchemaRefs.environmentParams } },
      attachValidation: true,
      config: readApiDoor(auth),
      handler: async (request, reply) => {
        const { namespace, name, env } = request.params;
        const covered =
          request.validationError === undefined &&
          coversPipeline(callerOf(request), namespace, name);
        if (!covered) throw new GatewayError('NotFound');
        const answer = await preview(pipelineId({ namespace, name }), env);
        if (answer.ok) return reply.code(200).send(answer.preview);
        throw previewRefusal(answer.reason, env);
      },
    });
  }
  done();
};

/** The error a preview that cannot be made answers with. */
function previewRefusal(reason: 'NotFound' | 'NotEvaluated' | 'NothingPending', env: string) {
  if (reason === 'NotEvaluated')
    return new GatewayError('NotEvaluated', undefined, {
      retryAfterSeconds: NOT_EVALUATED_RETRY_S,
    });
  if (reason === 'NothingPending')
    return new GatewayError('NotWaiting', `${env} has no pending promotion to preview`);
  return new GatewayError('NotFound');
}
