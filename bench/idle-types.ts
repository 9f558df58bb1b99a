/**
 * The idle part's shapes: what it runs (an idle fleet, two replicas, a window of no news) and
 * what it measured (status writes at start-up and in the window, by kube-sim and by each
 * replica's own metric).
 */
import type { ScaleSpec, StatusPair } from './scale-types.js';

/** What to run. */
export interface IdleSpec {
  fleet: ScaleSpec;
  /** The idle window's length. */
  windowMs: number;
  /** Both replicas' resync interval (only the Lease holder makes periodic passes). */
  resyncIntervalMs: number;
  /** One no-news event to one replica every this often through the window. */
  eventIntervalMs: number;
  /** How many distinct HelmReleases the events rotate over. */
  eventObjects: number;
}

/** promotion_gateway_status_writes_total by result, as one replica reports it. */
export type WriteResults = Record<'written' | 'conflict' | 'unchanged' | 'contended', number>;

/** One replica as seen at a moment. */
export interface ReplicaReading {
  name: string;
  leader: boolean;
  resyncPasses: number;
  evaluated: number;
  writes: WriteResults;
}

/** The start-up: both replicas' start-up passes until their status writes settled. */
export interface IdleStartup {
  /** From forking the replicas until both were ready and the writes had settled. */
  ms: number;
  /** False when writes still came after SETTLE_TIMEOUT_MS (the window then starts anyway). */
  settled: boolean;
  /** PUT + PATCH of pipelines/status that kube-sim counted by then. */
  writes: number;
  writesPerPipeline: number;
  replicas: ReplicaReading[];
}

/** The idle window. */
export interface IdleWindow {
  /** From the first reading to the last (the queues drained after the last event). */
  ms: number;
  /** PUT + PATCH of pipelines/status that kube-sim counted in the window. */
  writes: number;
  writesPerMinute: number;
  /** The replica the events went to, whether it held the Lease, and what it answered. */
  eventsTo: string;
  eventsToLeader: boolean;
  eventsSent: number;
  eventsAccepted: number;
  /** Resync passes in the window, per replica (only the Lease holder's should grow). */
  passes: Record<string, number>;
  /** Each replica's status_writes_total by result, grown over the window. */
  replicaWrites: Record<string, WriteResults>;
  /** Writes counted per Pipeline name (only when some were written). */
  writtenPipelines: Record<string, number>;
  /** The status at the window's start and end of the most written Pipeline, if any. */
  example: StatusPair | undefined;
}

/** What the idle part measured. */
export interface IdleResult {
  spec: IdleSpec;
  /** Whole part: fleet build, start-up, window, shut-down. */
  durationMs: number;
  /** Building the fleet (kube-sim, code API). */
  buildMs: number;
  startup: IdleStartup;
  window: IdleWindow;
}
