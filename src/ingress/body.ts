/**
 * The body formats the gateway accepts: JSON, as UTF-8, everywhere; and a compact JWS
 * (`application/jose`) on the routes that take signed statements (`config.acceptsJose`). The raw bytes are kept on the
 * request (signatures are over exact bytes) and parsed by fastify's own secure-json-parse
 * based parser, which rejects `__proto__` and `constructor.prototype` keys.
 */
import type { FastifyInstance } from 'fastify';
import { GatewayError } from './http-errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route takes a compact JWS body (`application/jose`) besides JSON. */
    acceptsJose?: boolean;
  }
}

const CHARSET_PARAM = /;\s*charset\s*=\s*"?([^";\s]*)"?/i;

/** True when a JSON content type names no charset or UTF-8 (the only encoding JSON allows). */
export function isUtf8ContentType(contentType: string | undefined): boolean {
  const charset = CHARSET_PARAM.exec(contentType ?? '')?.[1]?.toLowerCase();
  return charset === undefined || charset === 'utf-8' || charset === 'utf8';
}

/**
 * Replaces every content-type parser with one for application/json and one for
 * application/jose, both keeping the raw Buffer in `request.rawBody`. Other types fail with
 * fastify's 415 (mapped by error-handling.ts).
 */
export function installJsonBody(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    if (!isUtf8ContentType(request.headers['content-type'])) {
      done(new GatewayError('UnsupportedMediaType'), undefined);
      return;
    }
    const raw = body as Buffer;
    request.rawBody = raw;
    void parseJson(request, raw.toString('utf8'), (error, value) => {
      if (error) done(new GatewayError('InvalidJson'), undefined);
      else done(null, value);
    });
  });
  app.addContentTypeParser('application/jose', { parseAs: 'buffer' }, (request, body, done) => {
    const raw = body as Buffer;
    const text = raw.toString('latin1').trim();
    if (request.routeOptions.config.acceptsJose !== true) {
      done(new GatewayError('UnsupportedMediaType'), undefined);
      return;
    }
    request.rawBody = raw;
    // Whether it is a valid statement is authentication's to say (one 401 for every failure).
    done(null, text);
  });
}

/**
 * The JSON body of a call to a door that takes JSON or a compact JWS (`acceptsJose`), the JWS
 * aside: a call with no body (none sent, or no content type to parse one by) has none for the
 * route's schema to check, and is 400 InvalidBody here, never a crash in the handler.
 */
export function jsonBodyOf<T extends object>(body: T | undefined): T {
  if (typeof body !== 'object')
    throw new GatewayError('InvalidBody', 'Invalid body: the call needs a JSON body.');
  return body;
}
