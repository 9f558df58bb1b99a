/**
 * POST /v1/events/{cluster}: the `address` of a Flux Provider (generic or generic-hmac).
 * Order matters: authenticate over the raw bytes first (so unauthenticated callers cannot
 * probe the schema), then validate, then offer a hint and answer 202 before any cluster read.
 */
import type { FastifyPluginCallback, FastifyRequest } from 'fastify';
import { authenticateClusterEvent } from '../auth/authenticate.js';
import type { AuthSettings } from '../auth/authenticate.js';
import { GatewayError } from '../errors.js';
import type { EnqueueResult, HintSink } from '../hints/types.js';
import type { GatewayMetrics } from '../metrics.js';
import { rawBodyOf, requireIdentity } from './context.js';
import { hintKeyFor, loggedRevision, validateFluxEvent } from './flux-event.js';

/** Seconds a Flux sender is told to wait when the hint queue is full. */
export const QUEUE_FULL_RETRY_AFTER_SECONDS = 5;

/** What the events route needs. */
export interface EventsRouteOptions {
  auth: AuthSettings;
  hints: HintSink;
  metrics: GatewayMetrics;
}

/** The 202 body: `ignored` = not an application kind; never reveals whether K is referenced. */
export interface EventAccepted {
  accepted: true;
  hint: 'queued' | 'coalesced' | 'ignored';
}

interface Params {
  cluster: string;
}

// 'dropped-unreferenced' is reported as 'queued': which objects pipelines reference is private.
function publicHint(result: Exclude<EnqueueResult, 'full'>): EventAccepted['hint'] {
  return result === 'coalesced' ? 'coalesced' : 'queued';
}

/** Registers POST /v1/events/:cluster. */
export const eventsRoutes: FastifyPluginCallback<EventsRouteOptions> = (app, options, done) => {
  const { auth, hints, metrics } = options;

  app.post<{ Params: Params }>('/v1/events/:cluster', {
    preValidation: async (request: FastifyRequest<{ Params: Params }>) => {
      request.identity = await authenticateClusterEvent(
        request.headers,
        rawBodyOf(request),
        request.params.cluster,
        auth,
      );
    },
    handler: async (request, reply) => {
      const cluster = request.params.cluster;
      if (request.identity === undefined)
        metrics.eventsReceived.inc({ outcome: 'unauthenticated' });
      const identity = requireIdentity(request);

      const validation = validateFluxEvent(request.body);
      if (!validation.ok) {
        metrics.eventsReceived.inc({ outcome: 'invalid' });
        throw new GatewayError('InvalidBody', validation.message);
      }
      const event = validation.event;
      const key = hintKeyFor(cluster, event.involvedObject);
      const logFields = {
        subject: identity.subject,
        cluster,
        kind: event.involvedObject.kind,
        namespace: event.involvedObject.namespace,
        name: event.involvedObject.name,
        reason: event.reason,
        severity: event.severity,
      };
      request.log.debug(
        { ...logFields, revision: loggedRevision(event), eventMessage: event.message },
        'flux event',
      );

      if (key === undefined) {
        metrics.eventsReceived.inc({ outcome: 'ignored' });
        request.log.info({ ...logFields, hint: 'ignored' }, 'flux event accepted');
        return reply.code(202).send({ accepted: true, hint: 'ignored' } satisfies EventAccepted);
      }

      const result = hints.offer(key, 'flux-event');
      if (result === 'full') {
        metrics.eventsReceived.inc({ outcome: 'full' });
        request.log.warn(logFields, 'hint queue full');
        throw new GatewayError('QueueFull', undefined, {
          retryAfterSeconds: QUEUE_FULL_RETRY_AFTER_SECONDS,
        });
      }
      metrics.eventsReceived.inc({ outcome: 'accepted' });
      request.log.info({ ...logFields, hint: result }, 'flux event accepted');
      return reply
        .code(202)
        .send({ accepted: true, hint: publicHint(result) } satisfies EventAccepted);
    },
  });
  done();
};
