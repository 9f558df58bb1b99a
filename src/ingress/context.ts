/**
 * Per-request state the ingress layer attaches to fastify requests: the raw body bytes (HMAC
 * is computed over them) and the authenticated Identity. Declared once here for every plugin.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Identity } from '../auth/identity.js';
import type { Refusal } from '../auth/refusal.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The exact request body bytes as received; undefined for requests without a body. */
    rawBody: Buffer | undefined;
    /** Set by the authentication hook (authenticated.ts); undefined = not authenticated. */
    identity: Identity | undefined;
    /** Set by the authentication hook when the credential was refused: why, for the log. */
    refusal: Refusal | undefined;
  }
}

/** Registers the request decorations; call once on the root instance before any route. */
export function installRequestContext(app: FastifyInstance): void {
  app.decorateRequest('rawBody', undefined);
  app.decorateRequest('identity', undefined);
  app.decorateRequest('refusal', undefined);
}

/** The request's raw body, or an empty buffer for bodiless requests (still signed over). */
export function rawBodyOf(request: FastifyRequest): Buffer {
  return request.rawBody ?? Buffer.alloc(0);
}
