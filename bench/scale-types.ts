/**
 * The scale benchmark's messages and shapes: N pipelines x 3 environments x 2 targets over C
 * clusters, in one of two namespace layouts, with the fleet and the gateway in processes of
 * their own (scale-fleet-process.ts, scale-gateway-process.ts).
 */

/** One namespace per environment (few per cluster), or one per application (many). */
export type Layout = 'env' | 'app';

/** How the run is slowed (scale-pace.ts): not at all, one core, or API latency. */
export type PaceName = 'normal' | 'one-core' | 'latency-20ms' | 'latency-100ms';

/** A fleet to build, and the pace to run it at (normal when absent). */
export interface ScaleSpec {
  pipelines: number;
  clusters: number;
  layout: Layout;
  pace?: PaceName;
  /** The gateway outside any memory cgroup (its pod's limit does not size its heap). */
  unconstrained?: boolean;
  /** Sharded: this many gateways, each serving the Pipelines of its clusters (scale-shards.ts). */
  shards?: number;
}

/** What the fleet child reports when it is filled and listening. */
export interface ScaleFleetInfo {
  adminUrl: string;
  managementKubeconfig: string;
  /** Target cluster names (c0 ...), in order. */
  clusters: string[];
  /** The first pipeline's dev target, for the event sent at readiness. */
  probe: { cluster: string; namespace: string; name: string; hmacKey: string; object: unknown };
  buildMs: number;
}

/** Parent -> fleet child. */
export type ToScaleFleet =
  | { type: 'start'; spec: ScaleSpec }
  | { type: 'rss'; id: number }
  /** Rolls the dev target of a `fraction` of the pipelines to `version` (not counted). */
  | { type: 'roll'; id: number; fraction: number; version: string }
  /** Moves the probe pipeline's dev target to `version` and answers with the object. */
  | { type: 'probe'; id: number; version: string }
  /** The idle part's questions (idle-fleet.ts); none is counted as a request. */
  | IdleFleetRequest;

/** Parent -> fleet child, for the idle part (answered by idle-fleet.ts). */
export type IdleFleetRequest =
  /** Up to `count` HelmReleases stored on `cluster`, as stored (for signed no-news events). */
  | { type: 'objects'; id: number; cluster: string; count: number }
  /** Remembers every Pipeline's status now; answers with how many. */
  | { type: 'mark-statuses'; id: number }
  /** For each named Pipeline, its status when marked and now (StatusPair[]). */
  | { type: 'statuses-since'; id: number; names: string[] };

/** One Pipeline's status at the mark and now, with the resourceVersions. */
export interface StatusPair {
  name: string;
  before: { resourceVersion: string; status: unknown } | undefined;
  after: { resourceVersion: string; status: unknown } | undefined;
}

/** Fleet child -> parent. */
export type ScaleFleetMessage =
  { type: 'ready'; info: ScaleFleetInfo } | { type: 'reply'; id: number; value: unknown };

/** One of several replicas of the gateway (the idle part): who it is and how often it resyncs. */
export interface ReplicaSettings {
  /** Its leader-election identity and promotion instance id. */
  name: string;
  /** The periodic resync's interval (only the Lease holder makes the periodic passes). */
  resyncIntervalMs: number;
}

/** Parent -> gateway child; without `replica`, a lone gateway with no periodic resync. */
export type ToScaleGateway =
  | {
      type: 'start';
      spec: ScaleSpec;
      fleet: ScaleFleetInfo;
      replica?: ReplicaSettings;
      /** Of a sharded fleet: which shard this gateway serves (0 .. spec.shards - 1). */
      shard?: number;
    }
  | { type: 'resync'; id: number }
  | { type: 'idle'; id: number }
  | { type: 'sample'; id: number }
  /** Answered with the gateway's status() (GatewayStatus). */
  | { type: 'status'; id: number };

/** What the gateway child measured of its own start-up. */
export interface StartupReport {
  /** From start() until every pipeline had been evaluated once (its view exists). */
  evaluatedMs: number;
  /** From start() until the statuses those checks computed were written and all was idle. */
  statusesWrittenMs: number;
  /** From start() until /readyz said ready. */
  readyMs: number;
  /** From the event sent at readiness until the gateway's view showed its revision. */
  eventToViewMs: number;
}

/** A sample of the gateway process: peak RSS so far, CPU time used, promotions made. */
export interface GatewaySample {
  rssMaxBytes: number;
  /**
   * The memory limit the process runs under (its cgroup's, as process.constrainedMemory() reads
   * it); undefined when it has none: what sizes its heap, whatever the benchmark asked for.
   */
  podLimitBytes?: number | undefined;
  /** process.memoryUsage() at the RSS peak. */
  peak?: NodeJS.MemoryUsage | undefined;
  rssBytes: number;
  heapUsedBytes: number;
  cpuMs: number;
  promotions: number;
}

/** Gateway child -> parent. */
export type ScaleGatewayMessage =
  | { type: 'ready'; url: string; startup: StartupReport }
  | { type: 'reply'; id: number; value: unknown };
