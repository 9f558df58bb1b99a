/**
 * What a running gateway offers its callers (the `serve` command, the demo, tests and the
 * benchmarks): its lifecycle, an on-demand resync, the verified view of a Pipeline and a
 * status snapshot. Its parts stay inside; what they do shows in status(), logs and metrics.
 */
import type { PipelineRef } from '../pipeline/id.js';
import type { WorkQueueStats } from '../queue/queue-model.js';
import type { PipelineView } from '../reconcile/view.js';
import type { ResyncReport } from '../resync/resync.js';

/** A snapshot of a gateway's state, for operators, tests and benchmarks. */
export interface GatewayStatus {
  /** What /readyz answers, with the reasons when not ready. */
  ready: boolean;
  reasons: string[];
  /** Full resync passes this replica has completed. */
  resyncPasses: number;
  /** Whether this replica runs the periodic resync, and its leader-election identity. */
  leader: boolean;
  identity: string | undefined;
  /** The shard this gateway serves (config `sharding.name`); undefined when it serves all. */
  shard: string | undefined;
  /** Pipelines loaded and distinct application objects they reference. */
  pipelinesLoaded: number;
  referencedObjects: number;
  /** The hint queue and the pipeline re-check queue. */
  hints: WorkQueueStats;
  pipelines: WorkQueueStats;
  /** Pipelines evaluated at least once since start, and the status writes behind the checks. */
  evaluated: number;
  statusWrites: WorkQueueStats;
}

/** A gateway built by createGateway. Nothing runs until start(); nothing listens until listen(). */
export interface Gateway {
  /**
   * Checks the installed Pipeline CRD (rejects with InstalledCrdError when it would prune the
   * status the gateway writes), then starts the Pipeline watch, the start-up resync pass, the
   * campaign for the periodic ones and the CRD's re-checks (every resync interval).
   */
  start(): Promise<void>;
  /**
   * Listens on config.server host/port (or the override), and the metrics and web view
   * listeners when configured; resolves to the main address.
   */
  listen(override?: { host?: string; port?: number }): Promise<string>;
  /** The metrics listener's address once listening, when `server.metricsPort` is set. */
  metricsAddress(): string | undefined;
  /** The web view's address once listening, when `ui` is configured (docs/ui.md). */
  uiAddress(): string | undefined;
  /** Resolves when no hint or pipeline check is waiting or running. */
  idle(): Promise<void>;
  /** Stops campaigning (releasing a held Lease), watching and listening; waits for runs. */
  close(): Promise<void>;
  /** A full resync pass now (shared with one already running); resolves to its report. */
  resync(): Promise<ResyncReport>;
  /** One notification round now (the Lease holder delivers); resolves when its rounds end. */
  notify(): Promise<void>;
  /**
   * One re-check of the installed Pipeline CRD now, as the timer makes every resync interval:
   * status writes are held while it would prune them (GatewayStatus.reasons says so).
   */
  recheckCrd(): Promise<void>;
  /** The verified view of one Pipeline, as GET /v1/pipelines serves it. */
  view(ref: PipelineRef): PipelineView | undefined;
  /** A snapshot of the gateway's state. */
  status(): GatewayStatus;
}
