/**
 * The HTTP application: fastify with hardened limits, JSON-only bodies, one error registry,
 * rate limits and the ingress route groups. It never listens; src/server.ts and tests do.
 */
import { randomUUID } from 'node:crypto';
import { fastify, LogController } from 'fastify';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthSettings } from '../auth/authenticate.js';
import { createJwtKeys, type JwtKeys } from '../auth/jwt.js';
import type { LegacyKeyResolver } from '../auth/legacy-keys.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import type { HintSink } from '../hints/sinks.js';
import { installAuthentication } from './authenticated.js';
import { installJsonBody } from './body.js';
import { installRequestContext } from './context.js';
import {
  createClientErrorHandler,
  frameworkErrorHandler,
  installErrorHandling,
  shardNotFound,
} from './error-handling.js';
import { authorizationRoutes, type AuthorizationRouteOptions } from './authorization-routes.js';
import { eventsRoutes } from './flux-event-routes.js';
import { legacyRoutes, type PipelineHinter } from './legacy.js';
import { metricsRoute, opsRoutes, type ReadinessProbe } from './ops.js';
import { pipelineRoutes, type PipelineViewSource } from './pipelines.js';
import { trainRoutes, type TrainViewSource } from './train-routes.js';
import { installRateLimit } from './ratelimit.js';
import { whatIfRoutes, type WhatIfSource } from './what-if-routes.js';
import { refusalReporter } from './refusals.js';
import { AJV_OPTIONS, installSchemas } from './route-schemas.js';
import { debugEnabled, lazyChildLoggerFactory, type GatewayLogger } from '../log.js';
import type { GatewayMetrics } from '../metrics.js';

/** The Pipelines as the HTTP layer sees them: hints for all their targets, and their views. */
export interface PipelineAccess extends PipelineViewSource {
  hintPipeline: PipelineHinter;
}

/** Everything buildApp needs; the app owns none of it (tests pass fakes). */
export interface AppDeps {
  config: GatewayConfig;
  logger: GatewayLogger;
  hints: HintSink;
  pipelines: PipelineAccess;
  /** The Pipeline's legacy `hmac-key` Secret value, or undefined when it has none. */
  legacyKeys: LegacyKeyResolver;
  readiness: ReadinessProbe;
  metrics: GatewayMetrics;
  /** JWT key resolver; defaults to createJwtKeys(config.jwt) when config.jwt is set. */
  jwtKeys?: JwtKeys;
  /** The authorization doors (approvals, CI-triggered promotions); absent = not served. */
  authorizations?: Pick<
    AuthorizationRouteOptions,
    'principals' | 'authorizer' | 'now' | 'halter' | 'fleetHalts' | 'rollbacks' | 'trainApprovals'
  >;
  /** The release trains behind GET /v1/trains/{namespace}/{name}; absent = not served. */
  trains?: TrainViewSource;
  /** The fleet what-if behind POST /v1/what-if; absent = not served. */
  whatIf?: WhatIfSource;
  /** The gateway's clock (ms), which spaces the refusals' log lines; Date.now by default. */
  now?: () => number;
}

/** Keep-alive idle time: long enough for Flux's bursts, short enough not to hoard sockets. */
const KEEP_ALIVE_TIMEOUT_MS = 10_000;
/** Longest URL path segment; Kubernetes names are at most 253 characters. */
const MAX_PARAM_LENGTH = 253;
/** Routes whose request log line is always debug (probes and scrapes are noise). */
const QUIET_ROUTES = new Set(['/healthz', '/readyz', '/metrics']);
const UNMATCHED_ROUTE = '_unmatched';

/**
 * Node's own timeouts, made to hold: the whole request (headers and body) and the headers
 * alone must arrive within `requestTimeoutMs`, and Node checks them often enough for the
 * documented bound to be the measured one (its default check runs every 30 s). A request
 * without Host is refused by the app with the registry's body, not by Node with an empty one.
 */
function nodeServerOptions(requestTimeoutMs: number) {
  return {
    requestTimeout: requestTimeoutMs,
    headersTimeout: requestTimeoutMs,
    connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(requestTimeoutMs / 10))),
    requireHostHeader: false,
  };
}

/** The options every listener shares: the logger, timeouts that hold, registry-shaped errors. */
function hardenedServer(server: GatewayConfig['server'], logger: GatewayLogger) {
  // Widened on purpose: with pino's own Logger type fastify infers an instance type that its
  // plugin and hook signatures (typed for FastifyBaseLogger) do not accept.
  const baseLogger: FastifyBaseLogger = logger;
  return {
    loggerInstance: baseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    // No connectionTimeout (socket inactivity): it would cut a connection whose request is being
    // worked on past the bound, where the client must get its answer. Receiving is bounded by
    // the request and headers timeouts, idleness between requests by keepAliveTimeout, and the
    // work itself by each call's own timeout (answered 503 Unavailable).
    requestTimeout: server.requestTimeoutMs,
    http: nodeServerOptions(server.requestTimeoutMs),
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    return503OnClosing: true,
    clientErrorHandler: createClientErrorHandler(logger),
    frameworkErrors: frameworkErrorHandler,
  };
}

function observeResponse(metrics: GatewayMetrics) {
  // Callback style on purpose: an async hook costs a promise per request on the hot path.
  return (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    // The route pattern, never the URL: label values stay bounded and free of user input.
    const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
    const status = reply.statusCode;
    metrics.observeHttp(request.method, route, status, reply.elapsedTime / 1000);
    // Answered requests are debug (an accepted event's info line is its verified read, which
    // covers a whole burst); rejections stay at info, except for probes and scrapes, and for
    // refused credentials, whose rate-limited `request refused` line says why (ingress/refusals.ts).
    const quiet = status < 400 || status === 401 || QUIET_ROUTES.has(route);
    if (!quiet || debugEnabled(request.log)) {
      const fields = {
        method: request.method,
        route,
        status,
        ms: Math.round(reply.elapsedTime),
        subject: request.identity?.subject,
      };
      if (quiet) request.log.debug(fields, 'request');
      else request.log.info(fields, 'request');
    }
    done();
  };
}

/**
 * Builds the fastify instance with every ingress route registered. Does not listen and does
 * not call ready(), so the caller may still add routes or hooks.
 */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, logger, metrics } = deps;
  const app = fastify({
    ...hardenedServer(config.server, logger),
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    bodyLimit: config.server.bodyLimitBytes,
    trustProxy: config.server.trustProxy,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    ajv: AJV_OPTIONS,
  });

  // Request loggers are made only when a request logs something (see src/log.ts).
  app.setChildLoggerFactory((parent, bindings) =>
    lazyChildLoggerFactory(parent as GatewayLogger, bindings),
  );
  installRequestContext(app);
  installSchemas(app);
  installJsonBody(app);
  installErrorHandling(
    app,
    config.sharding === undefined ? undefined : shardNotFound(config.sharding),
  );
  app.addHook('onResponse', observeResponse(metrics));
  await installRateLimit(app, config.rateLimit);

  const auth: AuthSettings = {
    clusters: config.clusters,
    jwt: config.jwt,
    jwtKeys: deps.jwtKeys ?? (config.jwt === undefined ? undefined : createJwtKeys(config.jwt)),
  };
  const ownPort = config.server.metricsPort !== undefined;
  await app.register(opsRoutes, { readiness: deps.readiness, ...(ownPort ? {} : { metrics }) });
  await app.register(async (scope) => {
    installAuthentication(scope, refusalReporter(metrics, deps.now ?? Date.now));
    await scope.register(eventsRoutes, { auth, hints: deps.hints, metrics });
    await scope.register(legacyRoutes, {
      legacyKeys: deps.legacyKeys,
      hintPipeline: deps.pipelines.hintPipeline,
    });
    await scope.register(pipelineRoutes, { auth, pipelines: deps.pipelines });
    if (deps.trains !== undefined) await scope.register(trainRoutes, { auth, trains: deps.trains });
    if (deps.whatIf !== undefined)
      await scope.register(whatIfRoutes, { auth, whatIf: deps.whatIf, now: deps.now ?? Date.now });
    if (deps.authorizations !== undefined) {
      await scope.register(authorizationRoutes, {
        ...deps.authorizations,
        legacyKeys: deps.legacyKeys,
        legacyEndpoint: config.authorizations.legacyEndpoint,
      });
    }
  });
  return app;
}

/**
 * The listener for `server.metricsPort`: GET /metrics only, with the same timeouts and error
 * shapes as the main app, no rate limit (scrapers must not be throttled) and no other route.
 */
export async function buildMetricsApp(
  deps: Pick<AppDeps, 'config' | 'logger' | 'metrics'>,
): Promise<FastifyInstance> {
  const app = fastify(hardenedServer(deps.config.server, deps.logger));
  installErrorHandling(app);
  await app.register(metricsRoute, { metrics: deps.metrics });
  return app;
}
