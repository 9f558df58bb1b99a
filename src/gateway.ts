/**
 * The composition root: builds every stage of the data flow from a validated configuration and
 * the management cluster's KubeConfig, and wires them in order:
 * ingress -> auth -> hints -> index -> verify -> evaluate -> promote -> status, with resync
 * feeding the same pipeline queue. Nothing here decides anything.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import type { GatewayConfig } from './config/types.js';
import { HintQueue, PipelineQueue } from './hints/hint-queue.js';
import { realScheduler, type Scheduler } from './hints/scheduler.js';
import { wantedClusters } from './index/wanted-clusters.js';
import { PipelineIndex, parsePipelineId, pipelineId } from './index/pipeline-index.js';
import { ClusterRegistry } from './kube/clusters.js';
import { KubeLeaseStore } from './kube/lease.js';
import { PipelineWatcher } from './kube/pipeline-watch.js';
import { KubePipelineWriter } from './kube/pipeline-writer.js';
import { KubeObjectReader } from './kube/reader.js';
import { cachedSecretKeyReader } from './kube/secrets.js';
import type { KubeObject } from './kube/types.js';
import type { GatewayLogger } from './log.js';
import { createMetrics, type GatewayMetrics } from './metrics.js';
import type { Pipeline } from './pipeline/types.js';
import { strategyFor } from './promote/strategies/select.js';
import type { FetchLike } from './promote/strategies/webhook.js';
import { Reconciler } from './reconcile/reconciler.js';
import { resyncLeadership, type ResyncLeadership } from './resync/leadership.js';
import { Resync } from './resync/resync.js';
import { TargetStore } from './verify/target-store.js';
import { Verifier } from './verify/verifier.js';

/** Inputs of a gateway; the seams (clock, scheduler, fetch) are injectable for tests. */
export interface GatewayOptions {
  config: GatewayConfig;
  managementKubeConfig: KubeConfig;
  logger: GatewayLogger;
  scheduler?: Scheduler;
  random?: () => number;
  fetch?: FetchLike;
  /** Per-call timeout for Kubernetes requests (default 10 s). */
  kubeTimeoutMs?: number;
}

/** A running gateway's parts. `start()` loads state; `listen()` opens the HTTP port. */
export interface Gateway {
  app: FastifyInstance;
  metrics: GatewayMetrics;
  index: PipelineIndex;
  reconciler: Reconciler;
  hints: HintQueue;
  pipelines: PipelineQueue;
  resync: Resync;
  /** Whether this replica runs the periodic resync (it holds the resync Lease). */
  leadership: ResyncLeadership;
  clusters: ClusterRegistry;
  /** Starts the Pipeline watch, the first resync pass and the campaign for the periodic ones. */
  start(): Promise<void>;
  /** Listens on config.server host/port (or the override); resolves to the bound address. */
  listen(override?: { host?: string; port?: number }): Promise<string>;
  /** Resolves when no hint or pipeline check is waiting or running (tests, shutdown). */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/** A read younger than this is current enough to confirm a promotion without re-reading. */
const FRESHNESS_MS = 2_000;
/** How long a legacy webhook key lookup is cached. */
const LEGACY_KEY_TTL_MS = 30_000;
/**
 * Reads of one object for hints start at least this far apart: a lone event is read at once,
 * and a burst of identical events (which a server takes longer to receive than one read takes)
 * costs at most two reads, the second covering every event received before it started.
 */
const HINT_READ_SPACING_MS = 1_000;

/** Builds a gateway; nothing runs until start() and listen(). */
export async function createGateway(options: GatewayOptions): Promise<Gateway> {
  const { config, logger } = options;
  const scheduler = options.scheduler ?? realScheduler;
  const random = options.random ?? Math.random;
  const now = () => scheduler.now();
  const timeoutMs = options.kubeTimeoutMs ?? 10_000;
  const metrics = createMetrics({
    clusters: [config.management.name, ...config.clusters.map((c) => c.name)],
  });
  const index = new PipelineIndex(config);
  const clusters = new ClusterRegistry(
    config.management.name,
    options.managementKubeConfig,
    (kc) => new KubeObjectReader(kc, timeoutMs),
    timeoutMs,
  );
  const refreshClusters = debounce(() => clusters.sync(wantedClusters(config, index)), 10_000, now);
  const verifier = new Verifier(
    clusters,
    (c) => clusters.problem(c),
    (cluster, _verb, result) => {
      metrics.clusterReads.inc({ cluster: metrics.clusterLabel(cluster), result });
      // Rejected credentials usually mean a rotated kubeconfig Secret: re-read it soon.
      if (result === 'Unauthorized' || result === 'Forbidden') refreshClusters();
    },
  );
  const store = new TargetStore();
  const writer = new KubePipelineWriter(
    options.managementKubeConfig,
    timeoutMs,
    config.promotion.instanceId,
  );
  // The reconciler and the pipeline queue refer to each other; the queue is set right below.
  const queueRef: { current?: PipelineQueue } = {};
  const reconciler = new Reconciler({
    index,
    verifier,
    store,
    writer,
    policy: config.promotion.retry,
    instanceId: config.promotion.instanceId,
    logger,
    now,
    freshnessMs: FRESHNESS_MS,
    strategyFor: (pipeline: Pipeline, env: string) =>
      strategyFor(pipeline.spec, env, {
        writer,
        webhooks: config.promotion.webhooks,
        fetch: options.fetch,
        now,
      }),
    onOutcome: (outcome) => {
      metrics.promotions.inc({ outcome });
    },
    schedule: (id, delayMs) => {
      queueRef.current?.schedule(id, delayMs);
    },
    request: (id) => {
      const parsed = parsePipelineId(id);
      if (parsed) queueRef.current?.requestPipeline(parsed.namespace, parsed.name, 'retry');
    },
  });
  const pipelines = new PipelineQueue({
    hints: config.hints,
    has: (ns, name) => index.has(ns, name),
    process: (id) => reconciler.reconcile(id),
    scheduler,
    random,
  });
  queueRef.current = pipelines;
  const hints = new HintQueue({
    hints: config.hints,
    references: (key) => index.references(key),
    process: (key) => reconciler.onHint(key),
    minReadIntervalMs: HINT_READ_SPACING_MS,
    scheduler,
    random,
    onOffer: (_key, source, result) => {
      metrics.hints.inc({ source, result });
    },
  });
  const resync = new Resync({
    index,
    verifier,
    store,
    logger,
    scheduler,
    random,
    intervalMs: config.resync.intervalMs,
    jitter: config.resync.jitter,
    refreshClusters: () => clusters.sync(wantedClusters(config, index)),
    request: (id) => {
      const p = index.getById(id);
      if (p) pipelines.requestPipeline(p.metadata.namespace, p.metadata.name, 'resync');
    },
    onReport: (report) => {
      metrics.resyncDuration.observe(
        { result: report.unknown > 0 ? 'partial' : 'ok' },
        report.durationMs / 1000,
      );
    },
  });
  const leadership = resyncLeadership({
    settings: config.leaderElection,
    // A renewal still waiting past the renew deadline is useless: give up on it by then.
    store: new KubeLeaseStore(
      options.managementKubeConfig,
      Math.min(timeoutMs, config.leaderElection.renewDeadlineMs),
    ),
    resync,
    scheduler,
    random,
    logger,
    gauge: metrics.resyncLeader,
  });
  const lifecycle = { started: false };
  const watcher = new PipelineWatcher(
    options.managementKubeConfig,
    config.pipelineNamespaces,
    {
      upsert: (object: KubeObject) => {
        const pipeline = object as unknown as Pipeline;
        const { namespace, name } = pipeline.metadata;
        const changed = index.upsert(pipeline);
        if (changed) reconciler.requireFullRead(pipelineId(namespace, name));
        // Before start() has resolved the clusters, the first resync checks every pipeline.
        if (!lifecycle.started) return;
        const request = () => pipelines.requestPipeline(namespace, name, 'resync');
        // New references may name a new cluster: resolve it first, or the check reads nothing.
        if (changed) void clusters.sync(wantedClusters(config, index)).then(request, request);
        else request();
      },
      remove: (ns, name) => {
        index.remove(ns, name);
      },
      error: (message, retryInMs) => {
        logger.warn({ retryInMs }, `pipeline ${message}; restarting`);
      },
    },
    timeoutMs,
  );
  const legacySecret = cachedSecretKeyReader(
    options.managementKubeConfig,
    timeoutMs,
    LEGACY_KEY_TTL_MS,
    now,
  );
  const app = await buildApp({
    config,
    logger,
    hints,
    metrics,
    pipelines: {
      requestPipeline: (ns, name, source) => {
        reconciler.requireFullRead(pipelineId(ns, name));
        return pipelines.requestPipeline(ns, name, source);
      },
      view: (ns, name) => reconciler.view(ns, name),
    },
    legacyKeys: async (ns, name) => {
      const secretName = index.get(ns, name)?.spec.promotion?.strategy.secretRef?.name;
      return secretName === undefined ? undefined : legacySecret(ns, secretName, 'hmac-key');
    },
    readiness: () => readiness(watcher, resync),
  });
  return {
    app,
    metrics,
    index,
    reconciler,
    hints,
    pipelines,
    resync,
    leadership,
    clusters,
    start: async () => {
      await watcher.start();
      await clusters.sync(wantedClusters(config, index));
      lifecycle.started = true;
      leadership.start();
    },
    listen: async (override) =>
      app.listen({
        host: override?.host ?? config.server.host,
        port: override?.port ?? config.server.port,
      }),
    idle: async () => {
      for (let i = 0; i < 5; i++) {
        await Promise.all([hints.idle(), pipelines.idle()]);
      }
    },
    close: async () => {
      await leadership.stop();
      await watcher.stop();
      await app.close();
      await Promise.all([hints.stop(), pipelines.stop()]);
    },
  };
}

/** Runs `fn` at most once per `intervalMs`; calls in between are dropped. */
function debounce(fn: () => Promise<void>, intervalMs: number, now: () => number): () => void {
  let last = -Infinity;
  return () => {
    if (now() - last < intervalMs) return;
    last = now();
    void fn().catch(() => undefined);
  };
}

function readiness(
  watcher: PipelineWatcher,
  resync: Resync,
): { ready: boolean; reasons: string[] } {
  const reasons: string[] = [];
  if (!watcher.synced()) reasons.push('Pipelines are not loaded yet');
  if (resync.completedPasses === 0) reasons.push('the first resync has not completed');
  return { ready: reasons.length === 0, reasons };
}
