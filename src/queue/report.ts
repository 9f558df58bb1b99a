/**
 * What a WorkQueue tells the outside: its counters, and events for an observer (metrics, logs)
 * that must never break the queue's bookkeeping.
 */
import type { WorkQueueEvent, WorkQueueStats } from './queue-model.js';

/** The counters of WorkQueueStats (the gauges are the queue's own). */
export type QueueCounters = Omit<WorkQueueStats, 'depth' | 'scheduled' | 'inFlight'>;

/** A queue's counters and its observer. */
export class QueueReport<K> {
  readonly counters: QueueCounters = {
    queued: 0,
    coalesced: 0,
    rejected: 0,
    processed: 0,
    retried: 0,
    dropped: 0,
  };

  constructor(private readonly observer: ((event: WorkQueueEvent<K>) => void) | undefined) {}

  /** Tells the observer; an observer that throws is ignored. */
  emit(event: WorkQueueEvent<K>): void {
    try {
      this.observer?.(event);
    } catch {
      // A broken metrics hook must not corrupt the queue's bookkeeping.
    }
  }
}
