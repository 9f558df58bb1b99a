/**
 * Rate limiting with @fastify/rate-limit, keyed by the authenticated subject when there is
 * one, else by client IP.
 *
 * Hook order (the choice): authentication needs the raw body, so it runs in each route's
 * `preValidation` hook (after body parsing) and only records `request.identity`. The limiter
 * runs at `preHandler`, after that, so it can key on the identity; the handler then rejects
 * unauthenticated requests. Failed authentication therefore still consumes the caller IP's
 * budget (credential guessing is throttled), while bodies are bounded by bodyLimit before
 * either runs. Ops routes opt out with `config: { rateLimit: false }`. Counters are per replica.
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { GatewayError } from './http-errors.js';

/** The rate-limit bucket of a request: `<kind>:<subject>` when authenticated, else `ip:<ip>`. */
export function rateLimitKey(request: FastifyRequest): string {
  const identity = request.identity;
  return identity === undefined ? `ip:${request.ip}` : `${identity.kind}:${identity.subject}`;
}

/** Registers the limiter on the root instance; must run before any route is added. */
export async function installRateLimit(
  app: FastifyInstance,
  limits: { max: number; timeWindowMs: number },
): Promise<void> {
  await app.register(rateLimit, {
    global: true,
    hook: 'preHandler',
    max: limits.max,
    timeWindow: limits.timeWindowMs,
    keyGenerator: rateLimitKey,
    // Flux and CI callers never read the x-ratelimit-* headers; sending them on every accepted
    // event was a measurable share of the response work. A 429 still carries Retry-After.
    addHeadersOnExceeding: {
      'x-ratelimit-limit': false,
      'x-ratelimit-remaining': false,
      'x-ratelimit-reset': false,
    },
    addHeaders: {
      'x-ratelimit-limit': false,
      'x-ratelimit-remaining': false,
      'x-ratelimit-reset': false,
      'retry-after': true,
    },
    errorResponseBuilder: (_request, context) =>
      new GatewayError('RateLimited', undefined, {
        retryAfterSeconds: Math.max(1, Math.ceil(context.ttl / 1000)),
      }),
  });
}
