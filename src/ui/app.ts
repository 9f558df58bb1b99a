/**
 * The web view's HTTP application (docs/ui.md): its own fastify instance, read-only, on
 * `ui.port`. Pages are rendered on the server from the watched Pipelines (any replica serves
 * them, nothing needs the Lease), updated live over Server-Sent Events, with strict headers,
 * and errors as pages that say what to do; bad input is a 4xx, never a 5xx. It never listens:
 * the composition root (wiring/ui.ts) and tests do.
 */
import { randomUUID } from 'node:crypto';
import { fastify, LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Scheduler } from '../clock.js';
import type { GatewayConfig, UiConfig } from '../config/gateway-config.js';
import { createJwtKeys, type JwtKeys } from '../auth/jwt.js';
import {
  createClientErrorHandler,
  logUnavailable,
  toGatewayError,
  trackResponses,
} from '../ingress/error-handling.js';
import { AJV_OPTIONS, installSchemas } from '../ingress/route-schemas.js';
import type { GatewayLogger } from '../log.js';
import { assetUrlOf, loadAssets, type AssetTable } from './assets.js';
import type { FleetSource } from './fleet-rows.js';
import { installHeaders } from './headers.js';
import { errorPage } from './layout.js';
import { bodyRenderer, sendPage } from './page-routes.js';
import { LIVE_DEFAULTS, LiveHub, type LiveOptions } from './live-hub.js';
import type { UiMetrics } from './ui-metrics.js';
import { liveRoutes } from './live-routes.js';
import { pageRoutes } from './page-routes.js';
import { staticRoute } from './static-route.js';

/** Everything the view needs; it owns none of it but its hub. */
export interface UiDeps {
  config: Pick<GatewayConfig, 'server' | 'jwt' | 'sharding'> & { ui: UiConfig };
  logger: GatewayLogger;
  source: FleetSource;
  scheduler: Scheduler;
  /** JWT key resolver; defaults to createJwtKeys(config.jwt) when config.jwt is set. */
  jwtKeys?: JwtKeys;
  /** The static files; web/ of the package by default. */
  assets?: AssetTable;
  /** Live-update pacing, for tests; LIVE_DEFAULTS otherwise. */
  live?: Partial<Omit<LiveOptions, 'scheduler' | 'logger' | 'maxStreams' | 'renderBody'>>;
  /** Where the view counts its requests and streams; none when absent. */
  metrics?: UiMetrics;
}

/** The view's app and its live-update hub (the bench reads its flushes). */
export interface UiApp {
  app: FastifyInstance;
  hub: LiveHub;
}

const KEEP_ALIVE_TIMEOUT_MS = 10_000;
/** Longest URL path segment: Kubernetes names are at most 253 characters. */
const MAX_PARAM_LENGTH = 253;

/** Builds the view; the hub starts listening to `source` now and stops when the app closes. */
export async function buildUi(deps: UiDeps): Promise<UiApp> {
  const { config, logger } = deps;
  const baseLogger: FastifyBaseLogger = logger;
  const assets = deps.assets ?? loadAssets();
  const assetUrl = assetUrlOf(assets);
  const app = fastify({
    loggerInstance: baseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    // As the API's listener: receiving is bounded, a slow answer is never cut (http-app.ts).
    requestTimeout: config.server.requestTimeoutMs,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    return503OnClosing: true,
    // Read-only: nothing is lost by closing keep-alive connections at once on shutdown.
    forceCloseConnections: true,
    trustProxy: config.server.trustProxy,
    bodyLimit: 1024,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    ajv: AJV_OPTIONS,
    clientErrorHandler: createClientErrorHandler(logger),
    // A malformed URL (bad percent-encoding) is the reader's mistake: a 400 page.
    frameworkErrors: (_error, _request, reply) => {
      void sendPage(reply, 400, errorPage(400, 'BadRequest', assetUrl).text);
    },
  });
  const now = () => deps.scheduler.now();
  const hub = new LiveHub(deps.source, {
    ...LIVE_DEFAULTS,
    ...deps.live,
    scheduler: deps.scheduler,
    logger,
    maxStreams: config.ui.maxStreams,
    renderBody: bodyRenderer(deps.source, now),
    onClosed: (cause) => deps.metrics?.streamClosed(cause),
  });
  if (deps.metrics !== undefined) countRequests(app, hub, deps.metrics);
  installSchemas(app);
  installHeaders(app);
  trackResponses(app);
  app.setErrorHandler((error, request, reply) => {
    const mapped = toGatewayError(error);
    // The same mapping as the API's: an unreachable Kubernetes API is a 503 to retry, not a bug.
    if (mapped.code === 'Unavailable')
      logUnavailable(request.log as GatewayLogger, { route: request.routeOptions.url }, error);
    else if (mapped.status >= 500) request.log.error({ err: error }, 'view request failed');
    if (mapped.retryAfterSeconds !== undefined)
      void reply.header('retry-after', String(mapped.retryAfterSeconds));
    return sendPage(reply, mapped.status, errorPage(mapped.status, mapped.code, assetUrl).text);
  });
  app.setNotFoundHandler((_request, reply) =>
    sendPage(reply, 404, errorPage(404, 'NotFound', assetUrl).text),
  );
  const access = {
    anonymous: config.ui.anonymous,
    auth: {
      clusters: [],
      jwt: config.jwt,
      jwtKeys: deps.jwtKeys ?? (config.jwt === undefined ? undefined : createJwtKeys(config.jwt)),
    },
  };
  const shard = deps.config.sharding?.name;
  const context = { hub, source: deps.source, access, assetUrl, now, shard };
  await app.register(pageRoutes, context);
  await app.register(liveRoutes, context);
  await app.register(staticRoute, { assets });
  hub.start();
  app.addHook('preClose', (done) => {
    hub.stop();
    done();
  });
  return { app, hub };
}

/** Counts every answer of `app` and reads `hub`'s open streams at scrape time. */
function countRequests(app: FastifyInstance, hub: LiveHub, metrics: UiMetrics): void {
  metrics.bindStreams(() => hub.openStreams);
  // Callback style: an async hook costs a promise per request. The route pattern, never the URL.
  app.addHook('onResponse', (request, reply, done) => {
    metrics.request(request.routeOptions.url ?? '_unmatched', reply.statusCode);
    done();
  });
}
