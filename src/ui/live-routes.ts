/**
 * The live-update streams (Server-Sent Events): GET /live for the fleet and GET
 * /live/pipelines/{namespace}/{name} for one Pipeline, each authenticated and filtered as the
 * pages are. A stream takes up after the page's change number (`?since=`), or after the last
 * event it received (`Last-Event-ID`, which the browser sends when it reconnects). Beyond the
 * cap of open streams a request is answered 429 with Retry-After.
 */
import type { FastifyPluginCallback, FastifyReply } from 'fastify';
import { SchemaRefs } from '../ingress/route-schemas.js';
import { SECURITY_HEADERS } from './headers.js';
import { errorPage } from './layout.js';
import {
  sendPage,
  viewerOrPage,
  visiblePipeline,
  type PipelineParams,
  type UiContext,
} from './page-routes.js';

/** Longest change number taken from a request: `<8 hex>.<digits>`. */
const MAX_SINCE_LENGTH = 32;
/** What a refused stream is told to wait before trying again. */
const RETRY_AFTER_SECONDS = 5;

function sinceOf(lastEventId: unknown, query: unknown): string | undefined {
  const candidates = [lastEventId, (query as { since?: unknown } | undefined)?.since];
  for (const value of candidates) {
    if (typeof value === 'string' && value.length > 0 && value.length <= MAX_SINCE_LENGTH)
      return value;
  }
  return undefined;
}

function tooMany(reply: FastifyReply, context: UiContext): FastifyReply {
  void reply.header('retry-after', String(RETRY_AFTER_SECONDS));
  return sendPage(reply, 429, errorPage(429, 'RateLimited', context.assetUrl).text);
}

/** Registers the streams. */
export const liveRoutes: FastifyPluginCallback<UiContext> = (app, context, done) => {
  const { hub } = context;

  app.get('/live', {
    exposeHeadRoute: false,
    handler: async (request, reply) => {
      const viewer = await viewerOrPage(request, reply, context);
      if (viewer === undefined) return reply;
      if (!hub.admits(viewer)) return tooMany(reply, context);
      const since = sinceOf(request.headers['last-event-id'], request.query);
      reply.hijack();
      hub.openFleet(reply.raw, viewer, since, SECURITY_HEADERS);
      return reply;
    },
  });

  app.get<{ Params: PipelineParams }>('/live/pipelines/:namespace/:name', {
    exposeHeadRoute: false,
    schema: { params: { $ref: SchemaRefs.pipelineParams } },
    attachValidation: true,
    handler: async (request, reply) => {
      const viewer = await viewerOrPage(request, reply, context);
      if (viewer === undefined) return reply;
      const id = visiblePipeline(request, viewer, context.source);
      if (id === undefined)
        return sendPage(reply, 404, errorPage(404, 'NotFound', context.assetUrl).text);
      if (!hub.admits(viewer)) return tooMany(reply, context);
      reply.hijack();
      hub.openPipeline(reply.raw, viewer, id, SECURITY_HEADERS);
      return reply;
    },
  });
  done();
};
