/**
 * GET /v1/pipelines/{namespace}/{name}: the verified view of one pipeline, for bearer JWTs
 * whose `pipelines` claim covers it. Out-of-scope and nonexistent answer the same 404.
 */
import type { FastifyPluginCallback, FastifyRequest } from 'fastify';
import { authenticateBearer, coversPipeline } from '../auth/authenticate.js';
import type { AuthSettings } from '../auth/authenticate.js';
import { GatewayError } from '../errors.js';
import type { EnvironmentDecision, TargetStatus } from '../evaluate/types.js';
import { requireIdentity } from './context.js';

/**
 * What the gateway currently knows of one pipeline, as JSON: the verified state of every
 * target (per environment, in spec order) and each environment's decision and reason.
 */
export interface PipelineView {
  namespace: string;
  name: string;
  /** Verified target state per environment name. */
  targets: Readonly<Record<string, readonly TargetStatus[]>>;
  /** The latest evaluation, one decision per environment in spec order. */
  decisions: readonly EnvironmentDecision[];
  /** When the view was last evaluated (RFC 3339), if ever. */
  evaluatedAt?: string;
  [extra: string]: unknown;
}

/** The read side of the pipeline registry. */
export interface PipelineViewSource {
  /** The pipeline's view, or undefined when the gateway does not know it. */
  view(namespace: string, name: string): PipelineView | undefined;
}

/** What the pipelines route needs. */
export interface PipelinesRouteOptions {
  auth: AuthSettings;
  pipelines: PipelineViewSource;
}

interface Params {
  namespace: string;
  name: string;
}

/** Registers GET /v1/pipelines/:namespace/:name. */
export const pipelineRoutes: FastifyPluginCallback<PipelinesRouteOptions> = (
  app,
  options,
  done,
) => {
  const { auth, pipelines } = options;

  app.get<{ Params: Params }>('/v1/pipelines/:namespace/:name', {
    preValidation: async (request: FastifyRequest<{ Params: Params }>) => {
      request.identity = await authenticateBearer(request.headers, auth);
    },
    handler: async (request, reply) => {
      const identity = requireIdentity(request);
      const { namespace, name } = request.params;
      const view = coversPipeline(identity, namespace, name)
        ? pipelines.view(namespace, name)
        : undefined;
      if (view === undefined) throw new GatewayError('NotFound');
      return reply.code(200).send(view);
    },
  });
  done();
};
