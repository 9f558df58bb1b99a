import type { WorkQueue } from './work-queue.js';
import type { WorkQueueStats } from './queue-model.js';

/** What every queue in front of a WorkQueue shares: its stats, idle wait and stop. */
export abstract class QueueFront<K> {
  protected abstract readonly queue: WorkQueue<K>;

  /** Counters and gauges of the underlying queue. */
  stats(): WorkQueueStats {
    return this.queue.stats();
  }

  /** Resolves when nothing is waiting, due or running. */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  /** Stops taking work and cancels scheduled runs; resolves when runs in flight finish. */
  stop(): Promise<void> {
    return this.queue.stop();
  }
}
