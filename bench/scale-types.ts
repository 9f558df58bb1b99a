/**
 * The scale benchmark's messages and shapes: N pipelines x 3 environments x 2 targets over C
 * clusters, in one of two namespace layouts, with the fleet and the gateway in processes of
 * their own (scale-fleet-process.ts, scale-gateway-process.ts).
 */

/** One namespace per environment (few per cluster), or one per application (many). */
export type Layout = 'env' | 'app';

/** A fleet to build. */
export interface ScaleSpec {
  pipelines: number;
  clusters: number;
  layout: Layout;
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
  | { type: 'probe'; id: number; version: string };

/** Fleet child -> parent. */
export type ScaleFleetMessage =
  { type: 'ready'; info: ScaleFleetInfo } | { type: 'reply'; id: number; value: unknown };

/** Parent -> gateway child. */
export type ToScaleGateway =
  | { type: 'start'; spec: ScaleSpec; fleet: ScaleFleetInfo }
  | { type: 'resync'; id: number }
  | { type: 'idle'; id: number }
  | { type: 'sample'; id: number };

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
