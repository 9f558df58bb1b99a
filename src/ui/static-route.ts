/**
 * GET /static/{file}: the view's stylesheet and page scripts (assets.ts), gzipped when the
 * client takes it. A request naming the current version (`?v=<hash>`, as pages link them) may
 * be cached for good; any other is revalidated by its ETag. Unknown files are the 404 page.
 */
import type { FastifyPluginCallback } from 'fastify';
import type { AssetTable } from './assets.js';
import { acceptsGzip } from './headers.js';

/** What the route serves. */
export interface StaticOptions {
  assets: AssetTable;
}

/** Registers GET /static/:file. */
export const staticRoute: FastifyPluginCallback<StaticOptions> = (app, { assets }, done) => {
  app.get<{ Params: { file: string }; Querystring: { v?: unknown } }>(
    '/static/:file',
    async (request, reply) => {
      const asset = assets.get(request.params.file);
      if (asset === undefined) {
        reply.callNotFound();
        return reply;
      }
      const etag = `"${asset.hash}"`;
      const versioned = request.query.v === asset.hash;
      void reply
        .header('etag', etag)
        .header('vary', 'Accept-Encoding')
        .header('cache-control', versioned ? 'public, max-age=31536000, immutable' : 'no-cache')
        .type(asset.contentType);
      if (request.headers['if-none-match'] === etag) return reply.code(304).send();
      if (!acceptsGzip(request)) return reply.send(asset.body);
      return reply.header('content-encoding', 'gzip').send(asset.gzipped);
    },
  );
  done();
};
