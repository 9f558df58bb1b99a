/**
 * A hand-driven Scheduler for tests: time moves only when a test calls advance(), and due
 * timers fire in time order, each seeing now() equal to its own due time.
 */
import type { Scheduler } from '../../src/clock.js';

interface Timer {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/** A Scheduler whose clock starts at `start` and moves only through advance(). */
export class FakeScheduler implements Scheduler {
  private time: number;
  private seq = 0;
  private timers: Timer[] = [];
  /** Every delay passed to setTimer, in call order (for backoff assertions). */
  readonly requested: number[] = [];

  constructor(start = 0) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  /** The same hand-driven time: fake time never jumps. */
  monotonic(): number {
    return this.time;
  }

  setTimer(ms: number, fn: () => void): () => void {
    this.requested.push(ms);
    const timer: Timer = { at: this.time + Math.max(0, ms), seq: this.seq++, fn, cancelled: false };
    this.timers.push(timer);
    return () => {
      timer.cancelled = true;
    };
  }

  /** Timers set and not yet fired or cancelled. */
  pending(): number {
    return this.timers.filter((t) => !t.cancelled).length;
  }

  /** Due time of the earliest live timer, or undefined. */
  nextAt(): number | undefined {
    return this.live()[0]?.at;
  }

  /** Moves the clock forward by `ms`, firing every timer due by then in (time, creation) order. */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      const next = this.live()[0];
      if (next === undefined || next.at > end) break;
      this.timers = this.timers.filter((t) => t !== next);
      this.time = Math.max(this.time, next.at);
      next.fn();
    }
    this.time = end;
  }

  private live(): Timer[] {
    this.timers = this.timers.filter((t) => !t.cancelled);
    return [...this.timers].sort((a, b) => a.at - b.at || a.seq - b.seq);
  }
}

/** Lets pending promise callbacks run (a macrotask turn; no time passes on any clock). */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Moves `scheduler` forward by `ms` in `stepMs` steps, letting promises settle after each, so
 * that work started by a timer completes at about the fake time it started (timers due now
 * fire first).
 */
export async function advanceInSteps(
  scheduler: FakeScheduler,
  ms: number,
  stepMs = 100,
): Promise<void> {
  scheduler.advance(0);
  await flush();
  for (let done = 0; done < ms; done += stepMs) {
    scheduler.advance(Math.min(stepMs, ms - done));
    await flush();
  }
}

/** A promise with its resolve exposed, for processors the test finishes by hand. */
export interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

/** Creates a Deferred. */
export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
