import { describe, expect, it } from 'vitest';
import {
  LISTS_IN_FLIGHT,
  LISTS_PER_CLUSTER,
  ListLimits,
  listsPerCluster,
} from '../../../src/verify/list-limits.js';

const turn = () => new Promise((resolve) => setImmediate(resolve));

/** LISTs that wait until released, counting how many run at once per cluster and in all. */
function listsOf(limits: ListLimits) {
  const running = new Map<string, number>();
  const peak = new Map<string, number>();
  let total = 0;
  let peakTotal = 0;
  const releases: (() => void)[] = [];
  const list = (cluster: string) =>
    limits.run(cluster, async () => {
      const now = (running.get(cluster) ?? 0) + 1;
      running.set(cluster, now);
      peak.set(cluster, Math.max(peak.get(cluster) ?? 0, now));
      peakTotal = Math.max(peakTotal, (total += 1));
      await new Promise<void>((resolve) => releases.push(resolve));
      running.set(cluster, (running.get(cluster) ?? 1) - 1);
      total -= 1;
    });
  const drain = async (all: Promise<void>[]) => {
    while (releases.length > 0 || total > 0) {
      for (const release of releases.splice(0)) release();
      await turn();
    }
    await Promise.all(all);
  };
  return { list, drain, peak, peakTotal: () => peakTotal, running: () => total };
}

describe('listsPerCluster', () => {
  it.each([
    [0, LISTS_PER_CLUSTER],
    [1, 4],
    [4, 4],
    [5, 3],
    [8, 2],
    [9, 1],
    [16, 1],
    [50, 1],
    [500, 1],
  ])('%i clusters: %i each', (clusters, each) => {
    expect(listsPerCluster(clusters)).toBe(each);
  });
});

describe('ListLimits', () => {
  it('50 clusters of 3 scopes: one LIST per cluster at a time, the 16 in flight shared out', async () => {
    const limits = new ListLimits();
    const clusters = Array.from({ length: 50 }, (_, i) => `c${String(i)}`);
    limits.spreadOver(new Set(clusters));
    const rig = listsOf(limits);
    const all = clusters.flatMap((c) => [rig.list(c), rig.list(c), rig.list(c)]);
    await turn();
    expect(rig.running()).toBe(LISTS_IN_FLIGHT);
    await rig.drain(all);
    expect(Math.max(...rig.peak.values())).toBe(1);
    expect(rig.peakTotal()).toBe(LISTS_IN_FLIGHT);
  });

  it('two clusters get four each; a pass over more clusters shares out again', async () => {
    const limits = new ListLimits();
    limits.spreadOver(new Set(['a', 'b']));
    const rig = listsOf(limits);
    const first = Array.from({ length: 6 }, () => rig.list('a'));
    await turn();
    expect(rig.peak.get('a')).toBe(4);
    await rig.drain(first);
    limits.spreadOver(new Set(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']));
    const second = Array.from({ length: 6 }, () => rig.list('a'));
    rig.peak.clear();
    await rig.drain(second);
    expect(rig.peak.get('a')).toBe(2);
  });
});
