import { describe, expect, it } from 'vitest';
import { Limiter } from '../../../src/queue/limiter.js';

/** A task that records how many run with it and finishes when released. */
function gate() {
  let release = (): void => undefined;
  const done = new Promise<void>((resolve) => (release = resolve));
  return { done, release };
}

describe('Limiter', () => {
  it('runs at most `slots` tasks at once, the rest in arrival order, and passes results and errors through', async () => {
    const limiter = new Limiter(2);
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    const gates = Array.from({ length: 5 }, gate);
    const results = gates.map((g, i) =>
      limiter.run(async () => {
        started.push(i);
        running += 1;
        peak = Math.max(peak, running);
        await g.done;
        running -= 1;
        if (i === 3) throw new Error('task 3 failed');
        return i * 10;
      }),
    );
    const all = Promise.allSettled(results);
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    for (const g of gates) {
      g.release();
      await new Promise((resolve) => setImmediate(resolve));
    }
    const settled = await all;
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(peak).toBe(2);
    expect(settled.map((r) => (r.status === 'fulfilled' ? r.value : 'rejected'))).toEqual([
      0,
      10,
      20,
      'rejected',
      40,
    ]);
    // Every slot was handed back: a new task starts at once.
    let ran = false;
    await limiter.run(() => Promise.resolve((ran = true)));
    expect(ran).toBe(true);
  });

  it('resize: more slots start waiters at once; fewer let running tasks finish and start none until below', async () => {
    const limiter = new Limiter(1);
    const gates = Array.from({ length: 4 }, gate);
    const started: number[] = [];
    const runs = gates.map((g, i) =>
      limiter.run(async () => {
        started.push(i);
        await g.done;
      }),
    );
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    await turn();
    expect(started).toEqual([0]);
    expect(limiter.idle()).toBe(false);
    limiter.resize(3);
    await turn();
    expect(started).toEqual([0, 1, 2]);
    limiter.resize(1);
    gates[0]?.release();
    gates[1]?.release();
    await turn();
    // Two finished, one still runs: at one slot, the last waiter must wait for it.
    expect(started).toEqual([0, 1, 2]);
    gates[2]?.release();
    await turn();
    expect(started).toEqual([0, 1, 2, 3]);
    gates[3]?.release();
    await Promise.all(runs);
    expect(limiter.idle()).toBe(true);
  });
});
