/**
 * A WorkQueue<string> wired to a fake scheduler and a processor the test finishes by hand.
 * Keys look like `cluster:name`; the group is the part before ':'.
 */
import { WorkQueue } from '../../src/queue/work-queue.js';
import type {
  ProcessResult,
  WorkQueueEvent,
  WorkQueueOptions,
} from '../../src/queue/queue-model.js';
import { FakeScheduler, deferred, flush } from './fake-scheduler.js';
import type { Deferred } from './fake-scheduler.js';

/** A queue plus everything a test needs to drive and observe it. */
export interface Harness {
  queue: WorkQueue<string>;
  scheduler: FakeScheduler;
  /** Keys in the order the processor was called. */
  calls: string[];
  /** Runs in flight, oldest first. */
  running: { key: string; result: Deferred<ProcessResult> }[];
  events: WorkQueueEvent<string>[];
  /** Highest number of runs in flight at once, overall and per group. */
  maxInFlight: () => number;
  maxPerGroup: () => Map<string, number>;
  /** Finishes the oldest run of `key` with `result`, then lets the queue react. */
  finish: (key: string, result?: ProcessResult | Error) => Promise<void>;
}

/** Builds a harness; `options` override the defaults (capacity 10, caps 2/4, retry 100..1000 x3). */
export function harness(options: Partial<WorkQueueOptions<string>> = {}): Harness {
  const scheduler = new FakeScheduler(1_000);
  const calls: string[] = [];
  const running: Harness['running'] = [];
  const events: WorkQueueEvent<string>[] = [];
  const perGroup = new Map<string, number>();
  const maxGroup = new Map<string, number>();
  let maxAll = 0;
  const groupOf = (key: string): string => key.split(':')[0] ?? '';
  const queue = new WorkQueue<string>({
    keyOf: (k) => k,
    groupOf,
    process: async (key) => {
      calls.push(key);
      const g = groupOf(key);
      perGroup.set(g, (perGroup.get(g) ?? 0) + 1);
      maxGroup.set(g, Math.max(maxGroup.get(g) ?? 0, perGroup.get(g) ?? 0));
      maxAll = Math.max(maxAll, running.length + 1);
      const result = deferred<ProcessResult>();
      running.push({ key, result });
      try {
        return await result.promise;
      } finally {
        perGroup.set(g, (perGroup.get(g) ?? 1) - 1);
      }
    },
    capacity: 10,
    perGroupConcurrency: 2,
    globalConcurrency: 4,
    retryBaseMs: 100,
    retryMaxMs: 1_000,
    maxRetries: 3,
    scheduler,
    random: () => 0.5,
    observer: (e) => events.push(e),
    ...options,
  });
  const finish = async (key: string, result: ProcessResult | Error = 'done'): Promise<void> => {
    const i = running.findIndex((r) => r.key === key);
    const [run] = running.splice(i, 1);
    if (i < 0 || run === undefined) throw new Error(`${key} is not running`);
    if (result instanceof Error) run.result.reject(result);
    else run.result.resolve(result);
    await flush();
  };
  return {
    queue,
    scheduler,
    calls,
    running,
    events,
    maxInFlight: () => maxAll,
    maxPerGroup: () => maxGroup,
    finish,
  };
}
