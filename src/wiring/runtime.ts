/**
 * The composition root's inputs: the options a gateway is built from, resolved once into the
 * runtime every stage takes its clock, logger, Kubernetes calls and metrics from.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { realScheduler, type Scheduler } from '../clock.js';
import { ApiServerBook, systemResolver } from '../egress/api-servers.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import { AgentPool } from '../kube/agent-pool.js';
import { KubeCalls } from '../kube/request-options.js';
import type { GatewayLogger } from '../log.js';
import { createMetrics, type GatewayMetrics } from '../metrics.js';
import type { FetchLike } from '../outbound/fetch-like.js';
import { zeroAlertSeries } from './alert-series.js';

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
  /** The most Pipelines one halt across Pipelines may change (default 1,000; tests lower it). */
  maxPipelinesPerHalt?: number;
  /** How old the CRD's last check may be when a status write is made (CRD_FRESH_MS; tests). */
  crdFreshMs?: number;
}

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
  maxPipelinesPerHalt: number | undefined;
  /** The API servers of every cluster reached (fed by the cluster registry): never a target. */
  apiServers: ApiServerBook;
}

/** The runtime `options` describe; a pool and the real clock when none is given. */
export function runtimeOf(options: GatewayOptions): Runtime {
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
    metrics: metricsOf([config.management.name, ...config.clusters.map((c) => c.name)]),
    fetch: options.fetch,
    maxPipelinesPerHalt: options.maxPipelinesPerHalt,
    apiServers: new ApiServerBook({ resolve: systemResolver, now: () => scheduler.now() }),
  };
}

/** The gateway's metrics, its alerted series created at 0 for `clusters` (alert-series.ts). */
function metricsOf(clusters: readonly string[]): GatewayMetrics {
  const metrics = createMetrics({ clusters });
  zeroAlertSeries(metrics, clusters);
  return metrics;
}
