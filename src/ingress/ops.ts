/**
 * Operational endpoints: liveness, readiness and Prometheus metrics. Unauthenticated and
 * exempt from rate limiting (probes and scrapers must never be throttled); they reveal no
 * secrets and no user input.
 */
import type { FastifyPluginCallback } from 'fastify';
import { errorBody } from './http-errors.js';
import type { GatewayMetrics } from '../metrics.js';

/** Readiness as reported by the rest of the gateway; reasons are fixed, secret-free words. */
export type ReadinessProbe = () => { ready: boolean; reasons: string[] };

/** What the operational routes need. */
export interface OpsRouteOptions {
  readiness: ReadinessProbe;
  /** The registry to serve at /metrics; absent when metrics have a port of their own. */
  metrics?: GatewayMetrics;
}

/** What readiness is judged on. */
export interface ReadinessFacts {
  /** Every Pipeline watch has completed its first list. */
  pipelinesLoaded: boolean;
  /** Why the Pipelines are not loaded (what the management cluster answered), when known. */
  notLoadedBecause?: string | undefined;
  /** Full resync passes completed (the first fills the verified view). */
  resyncPasses: number;
  /** Why status writes are held (the installed CRD would prune them), while they are. */
  statusWritesHeld?: string | undefined;
}

/**
 * Ready once Pipelines are loaded and the first resync pass is done, and while status writes
 * are not held; else why not.
 */
export function readinessOf(facts: ReadinessFacts): { ready: boolean; reasons: string[] } {
  const reasons: string[] = [];
  if (!facts.pipelinesLoaded)
    reasons.push(
      facts.notLoadedBecause === undefined
        ? 'Pipelines are not loaded yet'
        : `Pipelines are not loaded: ${facts.notLoadedBecause}`,
    );
  if (facts.resyncPasses === 0) reasons.push('the first resync has not completed');
  if (facts.statusWritesHeld !== undefined) reasons.push(facts.statusWritesHeld);
  return { ready: reasons.length === 0, reasons };
}

/** Route config shared by the ops routes: no rate limit. */
const EXEMPT = { rateLimit: false } as const;

/** Registers GET /healthz, /readyz and, when given a registry, /metrics. */
export const opsRoutes: FastifyPluginCallback<OpsRouteOptions> = (app, options, done) => {
  const { readiness, metrics } = options;

  app.get('/healthz', { config: EXEMPT }, (_request, reply) => reply.send({ status: 'ok' }));

  app.get('/readyz', { config: EXEMPT }, (_request, reply) => {
    const state = readiness();
    if (state.ready) return reply.send({ status: 'ready' });
    return reply.code(503).send({ ...errorBody('NotReady'), reasons: state.reasons });
  });

  if (metrics !== undefined) app.register(metricsRoute, { metrics });
  done();
};

/** Registers GET /metrics: the Prometheus text of `metrics`' registry. */
export const metricsRoute: FastifyPluginCallback<{ metrics: GatewayMetrics }> = (
  app,
  { metrics },
  done,
) => {
  app.get('/metrics', { config: EXEMPT }, async (_request, reply) => {
    const text = await metrics.registry.metrics();
    return reply.type(metrics.registry.contentType).send(text);
  });
  done();
};
