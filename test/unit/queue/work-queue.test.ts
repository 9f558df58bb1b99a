import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WorkQueue } from '../../../src/queue/work-queue.js';
import { flush } from '../../support/fake-scheduler.js';
import { harness } from '../../support/queue-harness.js';

describe('WorkQueue coalescing', () => {
  it('processes an offered key once and then forgets it', async () => {
    const h = harness();
    expect(h.queue.offer('a:1')).toBe('queued');
    await flush();
    expect(h.calls).toEqual(['a:1']);
    await h.finish('a:1');
    await h.queue.idle();
    expect(h.calls).toEqual(['a:1']);
    expect(h.queue.stats()).toMatchObject({ depth: 0, inFlight: 0, processed: 1, queued: 1 });
  });

  it('coalesces offers of a key that is still waiting', async () => {
    const h = harness({ perGroupConcurrency: 1 });
    h.queue.offer('a:busy');
    expect(h.queue.offer('a:1')).toBe('queued');
    expect(h.queue.offer('a:1')).toBe('coalesced');
    expect(h.queue.offer('a:1')).toBe('coalesced');
    expect(h.queue.stats().depth).toBe(1);
    await flush();
    await h.finish('a:busy');
    await h.finish('a:1');
    await h.queue.idle();
    expect(h.calls).toEqual(['a:busy', 'a:1']);
    expect(h.queue.stats().coalesced).toBe(2);
  });

  it('runs urgent keys ahead of every waiting non-urgent key, oldest urgent first', async () => {
    const h = harness({ perGroupConcurrency: 1, globalConcurrency: 1 });
    h.queue.offer('a:busy');
    for (const key of ['a:r1', 'b:r2', 'a:r3']) h.queue.offer(key);
    h.queue.offer('b:event', true);
    // A waiting key offered again as urgent moves ahead too, behind the earlier urgent one.
    expect(h.queue.offer('a:r3', true)).toBe('coalesced');
    await flush();
    for (const key of ['a:busy', 'b:event', 'a:r3', 'a:r1', 'b:r2']) await h.finish(key);
    await h.queue.idle();
    expect(h.calls).toEqual(['a:busy', 'b:event', 'a:r3', 'a:r1', 'b:r2']);
  });

  it('runs a key offered while in flight exactly once more, after the current run', async () => {
    const h = harness();
    h.queue.offer('a:1');
    await flush();
    expect(h.queue.offer('a:1')).toBe('queued');
    expect(h.queue.offer('a:1')).toBe('coalesced');
    await flush();
    expect(h.calls).toEqual(['a:1']); // never two runs of one key at once
    await h.finish('a:1');
    expect(h.calls).toEqual(['a:1', 'a:1']);
    await h.finish('a:1');
    await h.queue.idle();
    expect(h.calls).toHaveLength(2);
  });

  it('costs at most two runs for a burst of 100 identical offers', async () => {
    let calls = 0;
    const queue = new WorkQueue<string>({
      keyOf: (k) => k,
      process: () => {
        calls++;
        return Promise.resolve('done');
      },
      capacity: 10,
      perGroupConcurrency: 1,
      globalConcurrency: 1,
      retryBaseMs: 1,
      retryMaxMs: 1,
      maxRetries: 0,
    });
    const results = Array.from({ length: 100 }, () => queue.offer('same'));
    await queue.idle();
    expect(calls).toBeGreaterThanOrEqual(1);
    expect(calls).toBeLessThanOrEqual(2);
    expect(results.filter((r) => r === 'coalesced').length).toBeGreaterThanOrEqual(98);
  });

  it('never runs a key more than once per offer nor twice at once, whatever the interleaving', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom('offer', 'finish', 'flush'), { maxLength: 40 }),
        async (steps) => {
          const h = harness();
          let offers = 0;
          for (const step of steps) {
            if (step === 'offer') {
              offers++;
              h.queue.offer('a:k');
            } else if (step === 'finish' && h.running.length > 0) await h.finish('a:k');
            else await flush();
            expect(h.running.length).toBeLessThanOrEqual(1);
          }
          await flush();
          while (h.running.length > 0) await h.finish('a:k');
          await h.queue.idle();
          expect(h.calls.length).toBeLessThanOrEqual(offers);
          if (offers > 0) expect(h.calls.length).toBeGreaterThanOrEqual(1);
        },
      ),
    );
  });
});

describe('WorkQueue capacity', () => {
  it("answers 'full' beyond capacity distinct waiting keys and recovers after draining", async () => {
    const h = harness({ capacity: 3, perGroupConcurrency: 1, globalConcurrency: 1 });
    h.queue.offer('a:running'); // starts at once, so it does not wait
    expect(['a:1', 'a:2', 'a:3'].map((k) => h.queue.offer(k))).toEqual([
      'queued',
      'queued',
      'queued',
    ]);
    expect(h.queue.offer('a:4')).toBe('full');
    expect(h.queue.offer('a:2')).toBe('coalesced'); // a waiting key is never refused
    expect(h.queue.stats().rejected).toBe(1);
    expect(h.events.filter((e) => e.type === 'full').map((e) => e.key)).toEqual(['a:4']);
    await flush();
    await h.finish('a:running'); // a:1 starts, freeing one place
    expect(h.queue.offer('a:4')).toBe('queued');
    for (const k of ['a:1', 'a:2', 'a:3', 'a:4']) await h.finish(k);
    await h.queue.idle();
    expect(h.calls).toEqual(['a:running', 'a:1', 'a:2', 'a:3', 'a:4']);
    expect(h.queue.offer('a:5')).toBe('queued');
  });
});

describe('WorkQueue concurrency and fairness', () => {
  it('caps runs per group while other groups proceed', async () => {
    const h = harness({ perGroupConcurrency: 2, globalConcurrency: 10 });
    for (let i = 0; i < 5; i++) h.queue.offer(`slow:${i}`);
    h.queue.offer('fast:0');
    await flush();
    expect(h.calls).toEqual(['slow:0', 'slow:1', 'fast:0']);
    await h.finish('fast:0');
    h.queue.offer('fast:1');
    await flush();
    await h.finish('fast:1'); // the other cluster keeps moving while slow is saturated
    expect(h.calls).toEqual(['slow:0', 'slow:1', 'fast:0', 'fast:1']);
    await h.finish('slow:1');
    expect(h.calls.at(-1)).toBe('slow:2');
    expect(h.maxPerGroup().get('slow')).toBe(2);
  });

  it('never exceeds the per-group or global cap and runs every key once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.tuple(fc.constantFrom('a', 'b', 'c'), fc.nat(20)), {
          maxLength: 25,
          selector: ([g, n]) => `${g}:${n}`,
        }),
        fc.array(fc.nat(), { maxLength: 60 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 5 }),
        async (keys, picks, perGroup, global) => {
          const h = harness({
            capacity: 100,
            perGroupConcurrency: perGroup,
            globalConcurrency: global,
          });
          const names = keys.map(([g, n]) => `${g}:${n}`);
          for (const k of names) h.queue.offer(k);
          await flush();
          let i = 0;
          while (h.running.length > 0) {
            const run = h.running[(picks[i++] ?? 0) % h.running.length];
            if (run !== undefined) await h.finish(run.key);
          }
          await h.queue.idle();
          for (const max of h.maxPerGroup().values()) expect(max).toBeLessThanOrEqual(perGroup);
          expect(h.maxInFlight()).toBeLessThanOrEqual(global);
          expect([...h.calls].sort()).toEqual([...names].sort());
        },
      ),
      { numRuns: 60 },
    );
  });

  it('starts ready keys in arrival order, across groups', async () => {
    const h = harness({ perGroupConcurrency: 1, globalConcurrency: 1 });
    for (const k of ['a:1', 'b:1', 'a:2', 'c:1', 'b:2']) h.queue.offer(k);
    await flush();
    while (h.running.length > 0) await h.finish(h.running[0]!.key);
    expect(h.calls).toEqual(['a:1', 'b:1', 'a:2', 'c:1', 'b:2']);
  });

  it('puts a key re-offered while running behind keys that were already waiting', async () => {
    const h = harness({ perGroupConcurrency: 1, globalConcurrency: 1 });
    h.queue.offer('a:1');
    h.queue.offer('a:2');
    await flush();
    h.queue.offer('a:1');
    await h.finish('a:1');
    await h.finish('a:2');
    await h.finish('a:1');
    expect(h.calls).toEqual(['a:1', 'a:2', 'a:1']);
  });

  it('keeps working when the observer throws', async () => {
    const h = harness({
      observer: () => {
        throw new Error('metrics broke');
      },
    });
    h.queue.offer('a:1');
    await flush();
    await h.finish('a:1');
    await h.queue.idle();
    expect(h.queue.stats()).toMatchObject({ processed: 1, inFlight: 0 });
  });
});
