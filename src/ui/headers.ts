/**
 * The view's response headers: a strict Content-Security-Policy (scripts, styles and
 * connections from the view itself only, no inline script or style, no framing, no forms),
 * no sniffing, no referrer (a pull request's page must not learn the view's URLs), and pages
 * that are never cached (they are the viewer's own); and gzip for pages, which shrinks the
 * fleet's HTML about tenfold.
 */
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** The Content-Security-Policy of every answer. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers on every answer of the view, streams included. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'camera=(), geolocation=(), microphone=(), payment=(), usb=()',
};

/** Pages smaller than this are sent as they are: gzip would save less than it costs. */
const MIN_GZIP_BYTES = 1024;

const gzipAsync = promisify(gzip);

/** Installs the headers and page compression on `app`. */
export function installHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', (_request, reply, done) => {
    void reply.headers(SECURITY_HEADERS);
    done();
  });
  app.addHook('onSend', compressPage);
}

/** Whether the client takes gzip (`Accept-Encoding`, q=0 excluded). */
export function acceptsGzip(request: FastifyRequest): boolean {
  const header = request.headers['accept-encoding'];
  if (typeof header !== 'string') return false;
  return header.split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding !== 'gzip' && coding !== '*') return false;
    return !params.some((p) => /^\s*q=0(\.0*)?\s*$/.test(p));
  });
}

async function compressPage(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
): Promise<unknown> {
  const type = reply.getHeader('content-type');
  if (typeof payload !== 'string' || typeof type !== 'string' || !type.startsWith('text/html'))
    return payload;
  void reply.header('vary', 'Accept-Encoding');
  if (Buffer.byteLength(payload) < MIN_GZIP_BYTES || !acceptsGzip(request)) return payload;
  void reply.header('content-encoding', 'gzip');
  void reply.removeHeader('content-length');
  return gzipAsync(payload, { level: 6 });
}
