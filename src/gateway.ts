/**
 * The composition root: builds every stage of the data flow from a validated configuration and
 * the management cluster's KubeConfig, and wires them in order:
 * ingress -> auth -> hints -> catalog -> verify -> evaluate -> promote -> status, with the
 * resync feeding the same pipeline queue. Nothing here decides anything.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { httpApp, listeners } from './gateway-http.js';
import { PipelineCatalog } from './catalog/catalog.js';
import { wantedClusters } from './catalog/wanted-clusters.js';
import { realScheduler, type Scheduler } from './clock.js';
import type { GatewayConfig } from './config/types.js';
import type { Gateway } from './gateway-api.js';
import { HintQueue } from './hints/hint-queue.js';
import { PipelineQueue } from './hints/pipeline-queue.js';
import { readinessOf } from './ingress/ops.js';
import { LegacyKeyStore } from './auth/legacy-keys.js';
import { AgentPool } from './kube/agent-pool.js';
import { ClusterRegistry } from './kube/clusters.js';
import { KubeLeaseStore } from './kube/lease.js';
import { PipelineWatcher } from './kube/pipeline-watch.js';
import { KubePipelineWriter } from './kube/pipeline-writer.js';
import { KubeObjectReader } from './kube/reader.js';
import { KubeCalls } from './kube/request-options.js';
import { secretKeyReader } from './kube/secrets.js';
import { failureSummary } from './kube/errors.js';
import { logFailure, type GatewayLogger } from './log.js';
import type { WorkQueueEvent } from './queue/types.js';
import { createMetrics, type GatewayMetrics } from './metrics.js';
import { pipelineId } from './pipeline/id.js';
import { pullRequestPorts, pullRequestState } from './promote/strategies/pull-request/ports.js';
import { strategyFor } from './promote/strategies/select.js';
import type { FetchLike } from './promote/strategies/webhook.js';
import { hintReader } from './reconcile/on-hint.js';
import { pipelineEvents } from './reconcile/pipeline-events.js';
import { PullRequestRefresher } from './reconcile/pull-requests.js';
import { Reconciler } from './reconcile/reconciler.js';
import { resyncLeadership } from './resync/leadership.js';
import { Resync } from './resync/resync.js';
import { Verifier } from './verify/verifier.js';
import { VerifiedTargets } from './verify/verified-targets.js';

export type { Gateway, GatewayStatus } from './gateway-api.js';

/** Inputs of a gateway; the seams (clock, randomness, fetch, connection pool) are for tests. */
export interface GatewayOptions {
  config: GatewayConfig;
  managementKubeConfig: KubeConfig;
  logger: GatewayLogger;
  scheduler?: Scheduler;
  random?: () => number;
  fetch?: FetchLike;
  /** Per-call timeout for Kubernetes requests (default 10 s). */
  kubeTimeoutMs?: number;
  /** Keep-alive connections to clusters (default: a pool of this gateway's own). */
  agentPool?: AgentPool;
}

/** A read younger than this is current enough to confirm a promotion without re-reading. */
export const FRESHNESS_MS = 2_000;
/**
 * Reads of one object for hints start at least this far apart: a lone event is read at once,
 * and a burst of identical events (which a server takes longer to receive than one read takes)
 * costs at most two reads, the second covering every event received before it started.
 */
const HINT_READ_SPACING_MS = 1_000;

/** What every stage is built from: the options resolved once. */
export interface Runtime {
  config: GatewayConfig;
  logger: GatewayLogger;
  management: KubeConfig;
  scheduler: Scheduler;
  random: () => number;
  now: () => number;
  calls: KubeCalls;
  metrics: GatewayMetrics;
  fetch: FetchLike | undefined;
}

function runtimeOf(options: GatewayOptions): Runtime {
  const { config } = options;
  const scheduler = options.scheduler ?? realScheduler;
  const pool = options.agentPool ?? new AgentPool();
  return {
    config,
    logger: options.logger,
    management: options.managementKubeConfig,
    scheduler,
    random: options.random ?? Math.random,
    now: () => scheduler.now(),
    calls: new KubeCalls(options.kubeTimeoutMs ?? 10_000, pool),
    metrics: createMetrics({
      clusters: [config.management.name, ...config.clusters.map((c) => c.name)],
    }),
    fetch: options.fetch,
  };
}

/** [verify]'s side of Kubernetes: one reader per cluster, verified state, and status writes. */
function clusterAccess(rt: Runtime, catalog: PipelineCatalog) {
  const { config, calls, metrics, now } = rt;
  const clusters = new ClusterRegistry({
    managementName: config.management.name,
    managementConfig: rt.management,
    makeReader: (kubeConfig) => new KubeObjectReader(kubeConfig, calls),
    calls,
    wanted: () => wantedClusters(config, catalog),
    now,
  });
  const verifier = new Verifier(clusters, (cluster, _verb, result) => {
    metrics.observeRead(cluster, result);
    clusters.noteReadResult(result);
  });
  const writer = new KubePipelineWriter(rt.management, calls, config.promotion.instanceId);
  const legacyKeys = new LegacyKeyStore(secretKeyReader(rt.management, calls));
  return { clusters, verified: new VerifiedTargets(verifier, now), writer, legacyKeys };
}

/** hints -> verify -> evaluate -> promote -> status: the two queues and the reconciler. */
function promotionLoop(rt: Runtime, catalog: PipelineCatalog, access: ClusterAccess) {
  const { config, logger, now, metrics, scheduler, random } = rt;
  const { verified, writer } = access;
  const { retry: policy, instanceId, webhooks } = config.promotion;
  const settings = config.promotion.pullRequest;
  const readSecret = secretKeyReader(rt.management, rt.calls);
  const pullRequest = pullRequestPorts({ settings, readSecret, now, fetch: rt.fetch });
  const reconciler = new Reconciler({
    ...{ catalog, verified, writer, policy, instanceId, logger, now },
    floors: config.authorizations.floors,
    freshnessMs: FRESHNESS_MS,
    strategyFor: (pipeline, env) =>
      strategyFor(pipeline.spec, env, { writer, webhooks, fetch: rt.fetch, now, pullRequest }),
    pullRequests: new PullRequestRefresher({
      ...{ writer, logger, now, intervalMs: settings.refreshIntervalMs },
      state: pullRequestState(pullRequest),
    }),
    onOutcome: (outcome) => {
      metrics.promotions.inc({ outcome });
    },
  });
  const common = { hints: config.hints, scheduler, random };
  const pipelines = new PipelineQueue({
    ...common,
    observer: queueFailures(logger, 'pipeline check failed', 'pipeline'),
    has: (id) => catalog.has(id),
    process: (id) => reconciler.reconcile(id),
  });
  const hints = new HintQueue({
    ...common,
    references: (key) => catalog.references(key),
    process: hintReader({ catalog, verified, pipelines, logger }),
    minReadIntervalMs: HINT_READ_SPACING_MS,
    observer: queueFailures(logger, 'hinted read failed', 'object'),
    onOffer: (_key, source, result) => {
      metrics.hints.inc({ source, result });
    },
  });
  return { reconciler, pipelines, hints };
}

/** [resync]: the periodic pass, feeding the same pipeline queue, under leader election. */
function resyncLoop(
  rt: Runtime,
  catalog: PipelineCatalog,
  access: ClusterAccess,
  pipelines: PipelineQueue,
) {
  const { config, logger, scheduler, random, metrics, calls } = rt;
  const resync = new Resync({
    ...config.resync,
    ...{ catalog, verified: access.verified, logger, scheduler, random, pipelines },
    refreshCredentials: async () => {
      await Promise.all([access.clusters.sync(), access.legacyKeys.refresh()]);
    },
    onReport: (report) => {
      metrics.observeResync(report);
    },
  });
  const leadership = resyncLeadership({
    settings: config.leaderElection,
    // A renewal still waiting past the renew deadline is useless: give up on it by then.
    store: new KubeLeaseStore(
      rt.management,
      calls.withTimeout(config.leaderElection.renewDeadlineMs),
    ),
    ...{ resync, scheduler, random, logger },
    gauge: metrics.resyncLeader,
  });
  return { resync, leadership };
}

export type ClusterAccess = ReturnType<typeof clusterAccess>;
export type PromotionLoop = ReturnType<typeof promotionLoop>;

/** The Pipeline watch, feeding the catalog; re-checks start only once start() has run. */
function pipelineWatch(
  rt: Runtime,
  catalog: PipelineCatalog,
  access: ClusterAccess,
  loop: PromotionLoop,
) {
  const lifecycle = { started: false };
  const handler = pipelineEvents({
    catalog,
    requireFullRead: (id) => {
      loop.reconciler.requireFullRead(id);
    },
    syncClusters: () => access.clusters.sync(),
    pipelines: loop.pipelines,
    logger: rt.logger,
    started: () => lifecycle.started,
    legacyKeys: access.legacyKeys,
  });
  const { management, config, calls, scheduler } = rt;
  const watcher = new PipelineWatcher(
    management,
    config.pipelineNamespaces,
    handler,
    calls,
    scheduler,
  );
  return { watcher, lifecycle };
}

/**
 * Logs a queue run that threw (a failed status write, say) in one line, and a key dropped
 * after its last retry; runs that asked for a retry without an error are not failures.
 */
function queueFailures<K>(logger: GatewayLogger, message: string, field: string) {
  return (event: WorkQueueEvent<K>): void => {
    if ((event.type !== 'retry' && event.type !== 'dropped') || event.error === undefined) return;
    const fields =
      event.type === 'retry'
        ? { [field]: event.key, retry: event.retry, retryInMs: event.delayMs }
        : { [field]: event.key, attempts: event.attempts, droppedAfterRetries: true };
    const level = event.type === 'retry' ? 'warn' : 'error';
    logFailure(logger, level, message, fields, {
      summary: failureSummary(event.error),
      err: event.error,
    });
  };
}

/** Builds a gateway; nothing runs until start() and listen(). */
export async function createGateway(options: GatewayOptions): Promise<Gateway> {
  const rt = runtimeOf(options);
  const catalog = new PipelineCatalog(rt.config);
  const access = clusterAccess(rt, catalog);
  const loop = promotionLoop(rt, catalog, access);
  const { resync, leadership } = resyncLoop(rt, catalog, access, loop.pipelines);
  const { watcher, lifecycle } = pipelineWatch(rt, catalog, access, loop);
  const readiness = () =>
    readinessOf({
      pipelinesLoaded: watcher.synced(),
      notLoadedBecause: watcher.notLoadedBecause(),
      resyncPasses: resync.completedPasses,
    });
  const { hints, pipelines, reconciler } = loop;
  rt.metrics.bindSources({
    hintQueueDepth: () => hints.stats().depth,
    pipelines: () => catalog.size,
    referencedObjects: () => catalog.referencedObjects,
  });
  const http = listeners(rt, await httpApp(rt, catalog, access, loop, readiness));
  return {
    start: async () => {
      await watcher.start();
      await access.clusters.sync();
      lifecycle.started = true;
      leadership.start();
    },
    listen: http.listen,
    metricsAddress: http.metricsAddress,
    idle: async () => {
      // A hinted read queues re-checks, and a re-check can requeue: settle a few rounds.
      for (let i = 0; i < 5; i++) await Promise.all([hints.idle(), pipelines.idle()]);
    },
    close: async () => {
      await leadership.stop();
      await watcher.stop();
      await http.close();
      await Promise.all([hints.stop(), pipelines.stop()]);
    },
    resync: () => resync.runOnce(),
    view: (ref) => reconciler.view(pipelineId(ref)),
    status: () => ({
      ...readiness(),
      resyncPasses: resync.completedPasses,
      leader: leadership.isLeader(),
      identity: leadership.identity,
      pipelinesLoaded: catalog.size,
      referencedObjects: catalog.referencedObjects,
      hints: hints.stats(),
      pipelines: pipelines.stats(),
    }),
  };
}
