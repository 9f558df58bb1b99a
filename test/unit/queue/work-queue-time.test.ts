import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../../../src/queue/backoff.js';
import { flush } from '../../support/fake-scheduler.js';
import { harness } from '../../support/queue-harness.js';
import type { Harness } from '../../support/queue-harness.js';

/** Moves fake time forward and lets the queue start whatever became due. */
async function advance(h: Harness, ms: number): Promise<void> {
  h.scheduler.advance(ms);
  await flush();
}

const retryDelays = (h: Harness): number[] =>
  h.events.flatMap((e) => (e.type === 'retry' ? [e.delayMs] : []));

describe('backoffDelay', () => {
  it('stays within [cap/2, cap] of a capped exponential, whatever the random source says', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 80 }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (retry, base, extra, r) => {
          const max = base + extra;
          const cap = Math.min(max, base * 2 ** (retry - 1));
          const delay = backoffDelay(retry, base, max, () => r);
          expect(delay).toBeGreaterThanOrEqual(Math.floor(cap / 2));
          expect(delay).toBeLessThanOrEqual(cap);
          expect(delay).toBeLessThanOrEqual(max);
        },
      ),
    );
  });

  it('doubles per retry until the cap', () => {
    const r = (): number => 0; // the low end of the jitter: exactly cap / 2
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, 100, 1_000, r))).toEqual([
      50, 100, 200, 400, 500, 500,
    ]);
  });
});

describe('WorkQueue retries', () => {
  it('retries with jittered exponential backoff on the fake clock, then drops after maxRetries', async () => {
    const randoms = [0, 0.999, 0.5, 0.25];
    const h = harness({ maxRetries: 3, random: () => randoms.shift() ?? 0 });
    h.queue.offer('a:1');
    await flush();
    const expected = [50, 199, 300, 500]; // caps 100, 200, 400, 800 (under max 1000)
    for (let retry = 1; retry <= 3; retry++) {
      await h.finish('a:1', 'retry');
      const delay = expected[retry - 1]!;
      expect(retryDelays(h).at(-1)).toBe(delay);
      await advance(h, delay - 1);
      expect(h.calls).toHaveLength(retry); // not a millisecond early
      await advance(h, 1);
      expect(h.calls).toHaveLength(retry + 1);
    }
    await h.finish('a:1', 'retry');
    const dropped = h.events.filter((e) => e.type === 'dropped');
    expect(dropped).toEqual([{ type: 'dropped', key: 'a:1', attempts: 4, error: undefined }]);
    expect(h.scheduler.pending()).toBe(0);
    await h.queue.idle();
    expect(h.queue.stats()).toMatchObject({ retried: 3, dropped: 1, scheduled: 0 });
  });

  it('caps the backoff at retryMaxMs', async () => {
    const h = harness({ retryBaseMs: 100, retryMaxMs: 250, maxRetries: 5, random: () => 0.999 });
    h.queue.offer('a:1');
    await flush();
    for (let i = 0; i < 5; i++) {
      await h.finish('a:1', 'retry');
      await advance(h, 250);
    }
    expect(retryDelays(h)).toEqual([99, 199, 249, 249, 249]);
  });

  it('treats a throwing processor as a retry and reports the error', async () => {
    const h = harness();
    h.queue.offer('a:1');
    await flush();
    const boom = new Error('cluster down');
    await h.finish('a:1', boom);
    expect(h.events.find((e) => e.type === 'retry')).toMatchObject({ retry: 1, error: boom });
    await advance(h, 1_000);
    expect(h.calls).toEqual(['a:1', 'a:1']);
  });

  it('resets the retry count after a success', async () => {
    const h = harness({ random: () => 0 });
    h.queue.offer('a:1');
    await flush();
    await h.finish('a:1', 'retry');
    await advance(h, 50);
    await h.finish('a:1', 'done');
    h.queue.offer('a:1');
    await flush();
    await h.finish('a:1', 'retry');
    expect(retryDelays(h)).toEqual([50, 50]);
  });

  it('does not let offers cut a retry backoff short', async () => {
    const h = harness({ random: () => 0 });
    h.queue.offer('a:1');
    await flush();
    expect(h.queue.offer('a:1')).toBe('queued'); // dirty during a failing run
    await h.finish('a:1', 'retry');
    expect(h.queue.offer('a:1')).toBe('coalesced');
    await flush();
    expect(h.calls).toHaveLength(1);
    await advance(h, 50);
    expect(h.calls).toHaveLength(2);
  });

  it('gives an offer made during the last failing run a fresh budget', async () => {
    const h = harness({ maxRetries: 0 });
    h.queue.offer('a:1');
    await flush();
    h.queue.offer('a:1');
    await h.finish('a:1', 'retry');
    expect(h.events.some((e) => e.type === 'dropped')).toBe(true);
    expect(h.calls).toHaveLength(2);
  });
});

describe('WorkQueue addAfter', () => {
  it('runs at the earliest of several requested times, once', async () => {
    const h = harness();
    expect(h.queue.addAfter('a:1', 500)).toBe('queued');
    expect(h.queue.addAfter('a:1', 200)).toBe('coalesced');
    expect(h.queue.addAfter('a:1', 900)).toBe('coalesced');
    expect(h.queue.stats().scheduled).toBe(1);
    await advance(h, 199);
    expect(h.calls).toEqual([]);
    await advance(h, 1);
    expect(h.calls).toEqual(['a:1']);
    await h.finish('a:1');
    await advance(h, 1_000);
    expect(h.calls).toEqual(['a:1']);
    expect(h.scheduler.pending()).toBe(0);
  });

  it('lets an offer run a scheduled key now', async () => {
    const h = harness();
    h.queue.addAfter('a:1', 500);
    expect(h.queue.offer('a:1')).toBe('coalesced');
    await flush();
    expect(h.calls).toEqual(['a:1']);
    await h.finish('a:1');
    await advance(h, 500);
    expect(h.calls).toEqual(['a:1']);
  });

  it('remembers an addAfter made while running and honours it after the run', async () => {
    const h = harness();
    h.queue.offer('a:1');
    await flush();
    expect(h.queue.addAfter('a:1', 300)).toBe('queued');
    expect(h.queue.addAfter('a:1', 100)).toBe('coalesced');
    await h.finish('a:1');
    expect(h.calls).toHaveLength(1);
    await advance(h, 100);
    expect(h.calls).toHaveLength(2);
  });

  it('lets an earlier addAfter pre-empt a retry backoff', async () => {
    const h = harness({ random: () => 0.5 });
    h.queue.offer('a:1');
    await flush();
    await h.finish('a:1', 'retry'); // backoff 75
    h.queue.addAfter('a:1', 10);
    await advance(h, 10);
    expect(h.calls).toHaveLength(2);
  });

  it('counts scheduled keys against capacity', () => {
    const h = harness({ capacity: 2 });
    h.queue.addAfter('a:1', 100);
    h.queue.addAfter('a:2', 100);
    expect(h.queue.addAfter('a:3', 100)).toBe('full');
    expect(h.queue.offer('a:3')).toBe('full');
  });
});

describe('WorkQueue idle and stop', () => {
  it('resolves idle only once nothing is ready, due or running', async () => {
    const h = harness();
    h.queue.offer('a:1');
    let idle = false;
    void h.queue.idle().then(() => (idle = true));
    await flush();
    expect(idle).toBe(false);
    h.queue.offer('a:1'); // dirty: one more run is still owed
    await h.finish('a:1');
    expect(idle).toBe(false);
    await h.finish('a:1');
    expect(idle).toBe(true);
  });

  it('does not wait for re-checks scheduled in the future', async () => {
    const h = harness();
    h.queue.addAfter('a:1', 10_000);
    await h.queue.idle();
    expect(h.queue.stats().scheduled).toBe(1);
    expect(h.calls).toEqual([]);
  });

  it('stop() waits for in-flight runs, cancels timers and refuses new work', async () => {
    const h = harness({ perGroupConcurrency: 1 });
    h.queue.offer('a:1');
    h.queue.offer('a:2');
    h.queue.addAfter('b:1', 500);
    await flush();
    h.queue.offer('a:1'); // dirty: must not run after stop
    let stopped = false;
    const done = h.queue.stop().then(() => (stopped = true));
    expect(h.scheduler.pending()).toBe(0);
    expect(h.queue.offer('c:1')).toBe('full');
    expect(h.queue.addAfter('c:1', 1)).toBe('full');
    await flush();
    expect(stopped).toBe(false);
    await h.finish('a:1', 'retry'); // no retry either
    await done;
    expect(stopped).toBe(true);
    await advance(h, 10_000);
    expect(h.calls).toEqual(['a:1']);
    expect(h.queue.stats()).toMatchObject({ depth: 0, scheduled: 0, inFlight: 0 });
  });

  it('resolves earlier idle waiters when stop() empties the queue', async () => {
    const h = harness({ perGroupConcurrency: 0, globalConcurrency: 0 });
    h.queue.offer('a:1'); // can never start: caps of zero
    let idle = false;
    void h.queue.idle().then(() => (idle = true));
    await flush();
    expect(idle).toBe(false);
    await h.queue.stop();
    await flush();
    expect(idle).toBe(true);
  });
});

describe('WorkQueue minRunIntervalMs', () => {
  it('runs a lone offer at once, then spaces a burst into one more run after the interval', async () => {
    const h = harness({ minRunIntervalMs: 1_000 });
    h.queue.offer('a:1');
    await flush();
    expect(h.calls).toHaveLength(1); // a lone offer is never delayed
    await h.finish('a:1', 'done');
    for (let i = 0; i < 50; i++) {
      h.queue.offer('a:1');
      await advance(h, 10); // offers keep arriving over 500 ms, longer than a run takes
    }
    expect(h.calls).toHaveLength(1);
    await advance(h, 499);
    expect(h.calls).toHaveLength(1); // not a millisecond before the interval
    await advance(h, 1);
    expect(h.calls).toHaveLength(2);
    await h.finish('a:1', 'done');
    await advance(h, 5_000);
    expect(h.calls).toHaveLength(2); // every offer of the burst was served by those two runs
  });

  it('does not space different keys', async () => {
    const h = harness({ minRunIntervalMs: 1_000 });
    h.queue.offer('a:1');
    h.queue.offer('b:1');
    await flush();
    expect(h.calls).toHaveLength(2);
  });
});
