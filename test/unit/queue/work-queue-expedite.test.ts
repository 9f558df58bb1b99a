/**
 * WorkQueue.expedite: for when what a key failed on has recovered. Unlike an offer it cuts a
 * retry backoff short, runs ahead of non-urgent keys and forgets the key's failures, so a
 * failure right after starts the backoff over from its base.
 */
import { describe, expect, it } from 'vitest';
import { flush } from '../../support/fake-scheduler.js';
import { harness, type Harness } from '../../support/queue-harness.js';

const retries = (h: Harness) =>
  h.events.flatMap((e) => (e.type === 'retry' ? [{ retry: e.retry, delayMs: e.delayMs }] : []));

/** Runs `key` four times, each failing: it waits out its fourth backoff (600 ms here). */
async function backingOff(h: Harness, key: string): Promise<void> {
  h.queue.offer(key);
  await flush();
  for (let i = 0; i < 3; i++) {
    await h.finish(key, 'retry');
    h.scheduler.advance(retries(h).at(-1)?.delayMs ?? 0);
    await flush();
  }
  await h.finish(key, 'retry');
}

describe('WorkQueue expedite', () => {
  it('cuts a retry backoff short that an offer keeps, and forgets the failures', async () => {
    const h = harness({ maxRetries: 10 });
    await backingOff(h, 'a:1');
    expect(retries(h).at(-1)).toEqual({ retry: 4, delayMs: 600 });
    expect(h.queue.offer('a:1', true)).toBe('coalesced');
    await flush();
    expect(h.calls).toHaveLength(4);

    expect(h.queue.expedite('a:1')).toBe('coalesced');
    await flush();
    expect(h.calls).toHaveLength(5);
    await h.finish('a:1', 'retry');
    expect(retries(h).at(-1)).toEqual({ retry: 1, delayMs: 75 });
  });

  it('runs expedited keys ahead of a backlog of ordinary ones', async () => {
    const h = harness({ globalConcurrency: 1, perGroupConcurrency: 1, capacity: 100 });
    h.queue.offer('a:busy');
    await flush();
    for (let i = 0; i < 5; i++) h.queue.offer(`a:${String(i)}`);
    h.queue.expedite('a:late');
    await h.finish('a:busy');
    expect(h.calls).toEqual(['a:busy', 'a:late']);
  });

  it('runs a key once more after its run in flight, even when that run fails', async () => {
    const h = harness();
    h.queue.offer('a:1');
    await flush();
    h.queue.expedite('a:1');
    await h.finish('a:1', 'retry');
    expect(h.calls).toHaveLength(2);
    await h.finish('a:1', 'done');
    h.queue.expedite('a:1');
    await flush();
    expect(h.calls).toHaveLength(3);
  });

  it('expediteBackoffs hurries exactly the keys waiting out a retry backoff', async () => {
    const h = harness({ maxRetries: 10 });
    await backingOff(h, 'a:1');
    await backingOff(h, 'b:1');
    h.queue.offer('c:1');
    await flush();
    await h.finish('c:1', { requeueAfterMs: 60_000 });
    expect(h.queue.expediteBackoffs().sort()).toEqual(['a:1', 'b:1']);
    await flush();
    expect(h.running.map((r) => r.key).sort()).toEqual(['a:1', 'b:1']);
    expect(h.queue.stats().scheduled).toBe(1);
  });
});
