/**
 * A bounded, coalescing work queue in the style of client-go's workqueue. A key is in at most
 * one place: waiting (ready or scheduled) or running; offers of a key that is already there
 * cost nothing more, so a burst of identical hints costs at most two runs.
 */
import { realScheduler, type Scheduler } from '../clock.js';
import { backoffDelay } from './backoff.js';
import { ReadyGroups } from './ready-groups.js';
import { QueueReport } from './report.js';
import { RunSpacing } from './run-spacing.js';
import { Waiters } from './waiters.js';
import type {
  Base,
  Entry,
  OfferResult,
  ProcessResult,
  ReadyEntry,
  RunningEntry,
  ScheduledEntry,
  WorkQueueOptions,
  WorkQueueStats,
} from './queue-model.js';

/** Placeholder until a scheduled entry's timer is set. */
const cancel = (): void => undefined;

/** The queue; see the module comment. All methods are synchronous except stop and idle. */
export class WorkQueue<K> {
  private readonly entries = new Map<string, Entry<K>>();
  private readonly ready: ReadyGroups<K>;
  private readonly scheduler: Scheduler;
  private readonly random: () => number;
  private readonly report: QueueReport<K>;
  private scheduledCount = 0;
  private inFlight = 0;
  private seq = 0;
  private stopped = false;
  private readonly idleWaiters = new Waiters(() => this.isIdle());
  private readonly spacing: RunSpacing;

  /** Builds a queue that starts processing on the first offer. */
  constructor(private readonly options: WorkQueueOptions<K>) {
    this.scheduler = options.scheduler ?? realScheduler;
    this.random = options.random ?? Math.random;
    this.spacing = new RunSpacing(options.minRunIntervalMs ?? 0);
    this.ready = new ReadyGroups(options.perGroupConcurrency);
    this.report = new QueueReport(options.observer);
  }

  /**
   * Asks for `key` to be processed as soon as possible (`urgent`: ahead of every non-urgent
   * key). 'coalesced' when a run is already pending (a key in retry backoff keeps its
   * backoff); 'full' when at capacity or stopped.
   */
  offer(key: K, urgent = false): OfferResult {
    return this.request(key, this.scheduler.now(), true, urgent);
  }

  /**
   * Asks for `key` to be processed after `ms`; merges with a pending run, keeping the earliest
   * time (even over a retry backoff). Same results as offer.
   */
  addAfter(key: K, ms: number): OfferResult {
    return this.request(key, this.scheduler.now() + Math.max(0, ms), false);
  }

  /**
   * Runs `key` as soon as possible, ahead of non-urgent keys, with its failures forgotten
   * (client-go's Forget): for when what it failed on has recovered. Unlike offer it cuts a retry
   * backoff short, and a run in flight runs once more. Same results as offer.
   */
  expedite(key: K): OfferResult {
    const entry = this.entries.get(this.options.keyOf(key));
    if (entry !== undefined) entry.failures = 0;
    return this.request(key, this.scheduler.now(), false, true);
  }

  /** Expedites every key waiting out a retry backoff, and returns them. */
  expediteBackoffs(): K[] {
    const waiting = [...this.entries.values()].filter((e) => e.state === 'scheduled' && e.backoff);
    for (const entry of waiting) this.expedite(entry.key);
    return waiting.map((e) => e.key);
  }

  /** Current counters and gauges. */
  stats(): WorkQueueStats {
    return {
      depth: this.ready.size,
      scheduled: this.scheduledCount,
      inFlight: this.inFlight,
      ...this.report.counters,
    };
  }

  /** Resolves when nothing is ready, due or running (timers set for later do not count). */
  idle(): Promise<void> {
    return this.idleWaiters.wait();
  }

  /** Stops taking work, cancels timers and drops waiting keys; resolves when runs finish. */
  stop(): Promise<void> {
    this.stopped = true;
    for (const entry of this.entries.values()) {
      if (entry.state === 'running') continue;
      this.detach(entry);
      this.entries.delete(entry.id);
    }
    this.idleWaiters.wake();
    return this.idle();
  }

  private request(key: K, requestedAt: number, isOffer: boolean, urgent = false): OfferResult {
    if (this.stopped) return this.reject(key);
    const id = this.options.keyOf(key);
    const at = this.spacing.notBefore(id, requestedAt);
    const entry = this.entries.get(id);
    if (entry === undefined) {
      if (this.ready.size + this.scheduledCount >= this.options.capacity) return this.reject(key);
      const group = this.options.groupOf?.(key) ?? '';
      this.place({ key, id, group, failures: 0, urgent }, at, false);
      return this.count('queued');
    }
    if (urgent && entry.state === 'ready') this.ready.hurry(entry, this.seq++);
    else if (urgent) entry.urgent = true;
    switch (entry.state) {
      case 'ready':
        return this.count('coalesced');
      case 'scheduled':
        // A key backing off after failures ignores offers: its retry reads fresh state anyway,
        // and a storm of hints about a failing cluster must not defeat the backoff.
        if (at < entry.dueAt && !(entry.backoff && isOffer)) {
          this.detach(entry);
          this.place(entry, at, false);
        }
        return this.count('coalesced');
      case 'running': {
        const wasPending = entry.dirty || entry.laterAt !== undefined;
        if (isOffer) entry.dirty = true;
        else entry.laterAt = Math.min(entry.laterAt ?? at, at);
        return this.count(wasPending ? 'coalesced' : 'queued');
      }
    }
  }

  /** Files a key as ready (when `at` has come, then dispatches) or scheduled for `at`. */
  private place(base: Base<K>, requestedAt: number, backoff: boolean): void {
    const { key, id, group, failures, urgent } = base;
    const at = this.spacing.notBefore(id, requestedAt);
    const now = this.scheduler.now();
    const core = { key, id, group, failures, urgent };
    if (at <= now) {
      const ready: ReadyEntry<K> = { ...core, state: 'ready', seq: this.seq++, readyAt: now };
      this.entries.set(id, ready);
      this.ready.add(ready);
      this.dispatch();
      return;
    }
    const scheduled: ScheduledEntry<K> = {
      ...core,
      state: 'scheduled',
      dueAt: at,
      backoff,
      cancel,
    };
    scheduled.cancel = this.scheduler.setTimer(at - now, () => {
      // Only the entry that set this timer may act on it; a replaced one is already cancelled.
      if (this.entries.get(id) !== scheduled) return;
      this.detach(scheduled);
      this.place(scheduled, this.scheduler.now(), false);
    });
    this.entries.set(id, scheduled);
    this.scheduledCount++;
  }

  /** Takes a waiting entry out of the ready or scheduled bookkeeping (not out of `entries`). */
  private detach(entry: ReadyEntry<K> | ScheduledEntry<K>): void {
    if (entry.state === 'scheduled') {
      entry.cancel();
      this.scheduledCount--;
      return;
    }
    this.ready.remove(entry);
  }

  /** Starts ready keys, oldest first among groups below their cap, up to the global cap. */
  private dispatch(): void {
    while (!this.stopped && this.inFlight < this.options.globalConcurrency) {
      const next = this.ready.next();
      if (next === undefined) return;
      this.start(next);
    }
  }

  private start(ready: ReadyEntry<K>): void {
    this.detach(ready);
    const { key, id, group, failures, urgent } = ready;
    const running: RunningEntry<K> = {
      ...{ key, id, group, failures, urgent },
      state: 'running',
      dirty: false,
      laterAt: undefined,
    };
    this.entries.set(id, running);
    this.ready.started(group);
    this.inFlight++;
    const startedAt = this.scheduler.now();
    this.spacing.started(id, startedAt);
    this.report.emit({ type: 'start', key, waitedMs: startedAt - ready.readyAt });
    void this.run(running, startedAt);
  }

  private async run(entry: RunningEntry<K>, startedAt: number): Promise<void> {
    // Never run processor code inside the caller of offer(): begin on a later microtask.
    await Promise.resolve();
    let result: ProcessResult = 'retry';
    let error: unknown;
    try {
      result = await this.options.process(entry.key);
    } catch (e) {
      error = e;
    }
    this.finish(entry, result, error, startedAt);
  }

  private finish(
    entry: RunningEntry<K>,
    result: ProcessResult,
    error: unknown,
    startedAt: number,
  ): void {
    this.inFlight--;
    this.ready.finished(entry.group);
    this.entries.delete(entry.id);
    if (!this.stopped) this.settle(entry, result, error, startedAt);
    this.dispatch();
    this.idleWaiters.wake();
  }

  /** Decides what follows a run: nothing, the pending run, a retry, or a drop. */
  private settle(
    entry: RunningEntry<K>,
    result: ProcessResult,
    error: unknown,
    startedAt: number,
  ): void {
    const now = this.scheduler.now();
    const pendingAt = entry.dirty ? now : entry.laterAt;
    if (result !== 'retry') {
      this.report.counters.processed++;
      this.report.emit({ type: 'done', key: entry.key, durationMs: now - startedAt });
      // A run that asks to be requeued is done for now; an earlier pending run still wins.
      const requeueAt = result === 'done' ? undefined : now + Math.max(0, result.requeueAfterMs);
      const at = Math.min(pendingAt ?? Infinity, requeueAt ?? Infinity);
      if (at !== Infinity) this.place({ ...entry, failures: 0 }, at, false);
      return;
    }
    const failures = entry.failures + 1;
    if (failures > this.options.maxRetries) {
      this.report.counters.dropped++;
      this.report.emit({ type: 'dropped', key: entry.key, attempts: failures, error });
      // An offer made during the failing run is new work: it gets a fresh retry budget.
      if (pendingAt !== undefined) this.place({ ...entry, failures: 0 }, pendingAt, false);
      return;
    }
    const { retryBaseMs, retryMaxMs } = this.options;
    const delayMs = backoffDelay(failures, retryBaseMs, retryMaxMs, this.random);
    this.report.counters.retried++;
    this.report.emit({ type: 'retry', key: entry.key, retry: failures, delayMs, error });
    // Offers made during the run merge into the retry (they do not cut a backoff short);
    // an addAfter for an earlier time wins, as it would over a scheduled backoff.
    const retryAt = now + delayMs;
    const at = Math.min(retryAt, entry.laterAt ?? Infinity);
    this.place({ ...entry, failures }, at, at === retryAt);
  }

  private isIdle(): boolean {
    if (this.ready.size > 0 || this.inFlight > 0) return false;
    if (this.scheduledCount === 0) return true;
    const now = this.scheduler.now();
    for (const entry of this.entries.values()) {
      if (entry.state === 'scheduled' && entry.dueAt <= now) return false;
    }
    return true;
  }

  private reject(key: K): OfferResult {
    this.report.emit({ type: 'full', key });
    return this.count('rejected');
  }

  private count(result: 'queued' | 'coalesced' | 'rejected'): OfferResult {
    this.report.counters[result]++;
    return result === 'rejected' ? 'full' : result;
  }
}
