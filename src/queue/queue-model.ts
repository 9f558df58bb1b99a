/**
 * Types of WorkQueue: its options, results, events and stats, and its internal entries.
 */
import type { Scheduler } from '../clock.js';

/**
 * What a processor reports: finished; try again with backoff; or finished for now and run
 * again after `requeueAfterMs` (as a Flux reconciler returns RequeueAfter), which needs no
 * call back into the queue.
 */
export type ProcessResult = 'done' | 'retry' | { requeueAfterMs: number };

/** Result of offering a key: a new run was arranged, merged with a pending one, or refused. */
export type OfferResult = 'queued' | 'coalesced' | 'full';

/** Something that happened to a key, for metrics and logs. Observers must not throw. */
export type WorkQueueEvent<K> =
  | { type: 'full'; key: K }
  | { type: 'start'; key: K; waitedMs: number }
  | { type: 'done'; key: K; durationMs: number }
  | { type: 'retry'; key: K; retry: number; delayMs: number; error?: unknown }
  | { type: 'dropped'; key: K; attempts: number; error?: unknown };

/** Construction options; the numbers usually come from config.hints. */
export interface WorkQueueOptions<K> {
  /** Identity of a key: offers with equal strings coalesce. */
  keyOf: (key: K) => string;
  /** Concurrency group of a key (e.g. its cluster); all keys share one group when absent. */
  groupOf?: (key: K) => string;
  /** Handles one key; throwing counts as 'retry'. */
  process: (key: K) => Promise<ProcessResult>;
  /** Most distinct keys waiting (ready or scheduled) before offers of new keys are refused. */
  capacity: number;
  /** Most keys of one group running at once. */
  perGroupConcurrency: number;
  /** Most keys running at once overall. */
  globalConcurrency: number;
  retryBaseMs: number;
  retryMaxMs: number;
  /** Retries after the first run; one more 'retry' drops the key (reported as 'dropped'). */
  maxRetries: number;
  /**
   * Runs of one key start at least this many ms apart; offers in between coalesce into one run
   * at the earliest allowed time. 0 (default) = no spacing. It bounds a burst of offers that
   * arrive over a longer time than one run takes to two runs, without delaying a lone offer.
   */
  minRunIntervalMs?: number;
  scheduler?: Scheduler;
  /** A source of numbers in [0, 1) for jitter; Math.random when absent. */
  random?: () => number;
  observer?: (event: WorkQueueEvent<K>) => void;
}

/** Counters and gauges of a queue. */
export interface WorkQueueStats {
  /** Keys ready to run now. */
  depth: number;
  /** Keys waiting for a timer (backoff or addAfter). */
  scheduled: number;
  inFlight: number;
  /** Offers and addAfters that created a new pending run. */
  queued: number;
  coalesced: number;
  rejected: number;
  processed: number;
  retried: number;
  dropped: number;
}

/* Internal bookkeeping of WorkQueue: one entry per key, in exactly one state. */

/** What every entry knows about its key. */
export interface Base<K> {
  key: K;
  id: string;
  group: string;
  /** Consecutive 'retry' results. */
  failures: number;
  /** Runs ahead of every non-urgent ready key (an event's re-check ahead of a resync's). */
  urgent: boolean;
}

/** Waiting to run now. */
export interface ReadyEntry<K> extends Base<K> {
  state: 'ready';
  /** Arrival order, for FIFO across groups. */
  seq: number;
  readyAt: number;
}

/** Waiting for a timer. */
export interface ScheduledEntry<K> extends Base<K> {
  state: 'scheduled';
  dueAt: number;
  /** Waiting out a retry backoff (offers do not cut it short; addAfter may). */
  backoff: boolean;
  cancel: () => void;
}

/** Being processed. */
export interface RunningEntry<K> extends Base<K> {
  state: 'running';
  /** An offer arrived while running: run once more right after (the dirty mark). */
  dirty: boolean;
  /** The earliest addAfter time requested while running. */
  laterAt: number | undefined;
}

/** A key's entry in whichever state it is. */
export type Entry<K> = ReadyEntry<K> | ScheduledEntry<K> | RunningEntry<K>;

/** A concurrency group: its running count and ready keys. */
export interface Group<K> {
  running: number;
  /** Ready entries in arrival order (Map keeps insertion order). */
  ready: Map<string, ReadyEntry<K>>;
  /** Urgent ready entries, in arrival order: picked before any of `ready`. */
  urgent: Map<string, ReadyEntry<K>>;
}
