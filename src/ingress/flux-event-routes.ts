/**
 * POST /v1/events/{cluster}: the `address` of a Flux Provider (generic or generic-hmac).
 * Order matters: authenticate over the raw bytes first (so unauthenticated callers cannot
 * probe the schema), then check the body, then offer a hint and answer 202 before any cluster
 * read.
 */
import type {
  FastifyBaseLogger,
  FastifyPluginCallback,
  FastifySchemaValidationError,
} from 'fastify';
import { authenticateClusterEvent, type AuthSettings } from '../auth/authenticate.js';
import { GatewayError } from './http-errors.js';
import type { EnqueueResult, HintSink } from '../hints/sinks.js';
import { debugEnabled } from '../log.js';
import type { GatewayMetrics } from '../metrics.js';
import { callerOf } from './authenticated.js';
import { rawBodyOf } from './context.js';
import { loggedRevision, objectKeyFor, type FluxEvent } from './flux-event-key.js';
import { SchemaRefs, validationMessage } from './route-schemas.js';
import type { ClusterParamsSchema } from '../shapes/routes.js';
import type { Static } from 'typebox';

/** Seconds a sender is told to wait when a queue is full. */
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

interface Route {
  Params: Static<typeof ClusterParamsSchema>;
  Body: FluxEvent;
}

// Label objects and bodies built once: the accepted path runs per event under bursts.
const ACCEPTED = { outcome: 'accepted' } as const;
const IGNORED = { outcome: 'ignored' } as const;
const FULL = { outcome: 'full' } as const;
const INVALID = { outcome: 'invalid' } as const;
const UNAUTHENTICATED = { outcome: 'unauthenticated' } as const;
// The 202 bodies as sent, serialized once: every accepted event answers one of them.
const JSON_TYPE = 'application/json; charset=utf-8';
const body = (hint: EventAccepted['hint']): string =>
  JSON.stringify({ accepted: true, hint } satisfies EventAccepted);
const IGNORED_BODY = body('ignored');
const COALESCED_BODY = body('coalesced');
// 'dropped-unreferenced' is reported as 'queued': which objects pipelines reference is private.
const QUEUED_BODY = body('queued');

/** The facts about an event worth a log line (never its signature or body). */
function eventFields(subject: string, cluster: string, event: FluxEvent) {
  return {
    subject,
    cluster,
    kind: event.involvedObject.kind,
    namespace: event.involvedObject.namespace,
    name: event.involvedObject.name,
    reason: event.reason,
    severity: event.severity,
  };
}

/**
 * The per-event line, at debug: a burst of identical events costs one read, and that read
 * logs the info line (see verify/hinted-read.ts). The fields are built only when debug is on.
 */
function logAccepted(
  log: FastifyBaseLogger,
  subject: string,
  cluster: string,
  event: FluxEvent,
  hint: EnqueueResult | 'ignored',
): void {
  if (!debugEnabled(log)) return;
  const fields = eventFields(subject, cluster, event);
  log.debug(
    { ...fields, revision: loggedRevision(event), eventMessage: event.message, hint },
    'flux event accepted',
  );
}

/** Registers POST /v1/events/:cluster; needs installAuthentication on its scope. */
export const eventsRoutes: FastifyPluginCallback<EventsRouteOptions> = (app, options, done) => {
  const { auth, hints, metrics } = options;

  app.post<Route>('/v1/events/:cluster', {
    schema: { params: { $ref: SchemaRefs.clusterParams }, body: { $ref: SchemaRefs.fluxEvent } },
    attachValidation: true,
    config: {
      door: 'flux-event',
      authenticate: (request) => {
        const { cluster } = request.params as Route['Params'];
        return authenticateClusterEvent(request.headers, rawBodyOf(request), cluster, auth);
      },
      onUnauthenticated: () => {
        metrics.eventsReceived.inc(UNAUTHENTICATED);
      },
    },
    handler: async (request, reply) => {
      const { subject } = callerOf(request);
      const cluster = request.params.cluster;
      if (request.validationError !== undefined) {
        metrics.eventsReceived.inc(INVALID);
        const { validation } = request.validationError as {
          validation?: FastifySchemaValidationError[];
        };
        throw new GatewayError('InvalidBody', validationMessage(validation));
      }
      const event = request.body;
      const key = objectKeyFor(cluster, event.involvedObject);
      if (key === undefined) {
        metrics.eventsReceived.inc(IGNORED);
        logAccepted(request.log, subject, cluster, event, 'ignored');
        return reply.code(202).type(JSON_TYPE).send(IGNORED_BODY);
      }
      const result = hints.offer(key, 'flux-event');
      if (result === 'full') {
        metrics.eventsReceived.inc(FULL);
        request.log.warn(eventFields(subject, cluster, event), 'hint queue full');
        throw new GatewayError('QueueFull', undefined, {
          retryAfterSeconds: QUEUE_FULL_RETRY_AFTER_SECONDS,
        });
      }
      metrics.eventsReceived.inc(ACCEPTED);
      logAccepted(request.log, subject, cluster, event, result);
      return reply
        .code(202)
        .type(JSON_TYPE)
        .send(result === 'coalesced' ? COALESCED_BODY : QUEUED_BODY);
    },
  });
  done();
};
