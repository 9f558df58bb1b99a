/**
 * The view's pages: GET / (the fleet) and GET /pipelines/{namespace}/{name}. Each request is
 * authenticated as the API's viewer (ui-access.ts) and shows only what the viewer may see; a
 * Pipeline outside the viewer's scope is the same 404 as one that does not exist, as in the API.
 */
import type { FastifyPluginCallback, FastifyReply, FastifyRequest } from 'fastify';
import { SchemaRefs } from '../ingress/route-schemas.js';
import type { EnvironmentParamsSchema, PipelineParamsSchema } from '../shapes/routes.js';
import type { PreviewAnswer } from '../preview/pipeline-previews.js';
import { previewPage } from './preview-page.js';
import type { Static } from 'typebox';
import { pipelineId, type PipelineId } from '../pipeline/id.js';
import { viewerOf, type AccessSettings, type Viewer } from './ui-access.js';
import type { UiAsset } from './assets.js';
import type { FleetSource } from './fleet-rows.js';
import { fleetPage } from './fleet-page.js';
import { errorPage } from './layout.js';
import type { LiveHub, Render } from './live-hub.js';
import { pipelineBody, pipelinePage } from './pipeline-page.js';

/** What the routes share. */
export interface UiContext {
  hub: LiveHub;
  source: FleetSource;
  access: AccessSettings;
  assetUrl: (asset: UiAsset) => string;
  /** The reader's clock (ms). */
  now: () => number;
  /** The shard this gateway serves, named on the fleet page; undefined when unsharded. */
  shard?: string | undefined;
}

/** Route params of a Pipeline (schemas/routes.schema.json `pipelineParams`). */
export type PipelineParams = Static<typeof PipelineParamsSchema>;

/** Sends an HTML page that is never cached (every page is its viewer's own). */
export function sendPage(reply: FastifyReply, status: number, text: string): FastifyReply {
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .send(text);
}

/**
 * The request's viewer; else the 401 page (no or a bad token; the reason is logged at debug) or
 * the 403 page (a token that names no Pipeline) is sent and undefined answered.
 */
export async function viewerOrPage(
  request: FastifyRequest,
  reply: FastifyReply,
  context: UiContext,
): Promise<Viewer | undefined> {
  const checked = await viewerOf(request.headers, context.access);
  if (!checked.ok) {
    request.log.debug({ reason: checked.reason }, 'view request refused');
    void reply.header('www-authenticate', 'Bearer');
    await sendPage(reply, 401, errorPage(401, 'Unauthenticated', context.assetUrl).text);
    return undefined;
  }
  if (checked.viewer.seesNothing) {
    await sendPage(reply, 403, errorPage(403, 'Forbidden', context.assetUrl).text);
    return undefined;
  }
  return checked.viewer;
}

/** The id of a Pipeline the viewer may see and the gateway knows, else undefined. */
export function visiblePipeline(
  request: FastifyRequest<{ Params: PipelineParams }>,
  viewer: Viewer,
  source: FleetSource,
): PipelineId | undefined {
  // A path that is no Kubernetes name cannot name a Pipeline: the same 404 as any other.
  if (request.validationError !== undefined) return undefined;
  const id = pipelineId(request.params);
  return viewer.sees(id) && source.pipeline(id) !== undefined ? id : undefined;
}

/** The body of a Pipeline as its page shows it (undefined when it is gone), for live frames. */
export function bodyRenderer(source: FleetSource, now: () => number): Render {
  return (id) => {
    const pipeline = source.pipeline(id);
    if (pipeline === undefined) return undefined;
    return pipelineBody(pipeline, source.view(id), now()).text;
  };
}

/** Route params of an environment (schemas/routes.schema.json `environmentParams`). */
type EnvironmentParams = Static<typeof EnvironmentParamsSchema>;

/** The error page of a preview that cannot be shown: unknown, not evaluated, nothing pending. */
function refusalOf(answer: PreviewAnswer | undefined): [number, string] {
  if (answer?.ok === false && answer.reason === 'NotEvaluated') return [503, 'NotEvaluated'];
  if (answer?.ok === false && answer.reason === 'NothingPending') return [409, 'NotWaiting'];
  return [404, 'NotFound'];
}

/** Registers the pages. */
export const pageRoutes: FastifyPluginCallback<UiContext> = (app, context, done) => {
  const { hub, assetUrl } = context;

  app.get('/', async (request, reply) => {
    const viewer = await viewerOrPage(request, reply, context);
    if (viewer === undefined) return reply;
    const fleet = hub.snapshot(viewer);
    return sendPage(reply, 200, fleetPage({ ...fleet, assetUrl, shard: context.shard }).text);
  });

  app.get<{ Params: PipelineParams }>('/pipelines/:namespace/:name', {
    schema: { params: { $ref: SchemaRefs.pipelineParams } },
    attachValidation: true,
    handler: async (request, reply) => {
      const viewer = await viewerOrPage(request, reply, context);
      if (viewer === undefined) return reply;
      const id = visiblePipeline(request, viewer, context.source);
      const pipeline = id === undefined ? undefined : context.source.pipeline(id);
      if (id === undefined || pipeline === undefined)
        return sendPage(reply, 404, errorPage(404, 'NotFound', assetUrl).text);
      const since = hub.token();
      const view = context.source.view(id);
      const text = pipelinePage({ pipeline, view, now: context.now(), since, assetUrl }).text;
      return sendPage(reply, 200, text);
    },
  });

  app.get<{ Params: EnvironmentParams }>('/pipelines/:namespace/:name/environments/:env/preview', {
    schema: { params: { $ref: SchemaRefs.environmentParams } },
    attachValidation: true,
    handler: async (request, reply) => {
      // The viewer first: nothing is read for a request not authenticated and in scope.
      const viewer = await viewerOrPage(request, reply, context);
      if (viewer === undefined) return reply;
      const id = visiblePipeline(request, viewer, context.source);
      const answer =
        id === undefined || context.source.preview === undefined
          ? undefined
          : await context.source.preview(id, request.params.env);
      if (answer?.ok === true)
        return sendPage(reply, 200, previewPage(answer.preview, assetUrl).text);
      const [status, code] = refusalOf(answer);
      return sendPage(reply, status, errorPage(status, code, assetUrl).text);
    },
  });
  done();
};
