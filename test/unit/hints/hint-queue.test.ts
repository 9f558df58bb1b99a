import { describe, expect, it } from 'vitest';
import { HintQueue, PipelineQueue } from '../../../src/hints/hint-queue.js';
import type { EnqueueResult, HintKey, HintSource } from '../../../src/hints/types.js';
import type { ProcessResult } from '../../../src/hints/work-queue-types.js';
import { PipelineIndex } from '../../../src/index/pipeline-index.js';
import type { Pipeline } from '../../../src/pipeline/types.js';
import { FakeScheduler, deferred, flush } from './fake-scheduler.js';
import type { Deferred } from './fake-scheduler.js';

const hints = {
  capacity: 2,
  perClusterConcurrency: 1,
  retryBaseMs: 100,
  retryMaxMs: 1_000,
  maxRetries: 2,
};

const config = { management: { name: 'mgmt' }, clusters: [] };
/** The clusterRef `remote` from a Pipeline in flux-system maps to no config entry. */
const remote = 'flux-system/remote';

function pipeline(namespace: string, name: string, targetNamespaces: string[]): Pipeline {
  return {
    apiVersion: 'pipelines.weave.works/v1alpha1',
    kind: 'Pipeline',
    metadata: { namespace, name },
    spec: {
      appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2beta1', kind: 'HelmRelease', name: 'app' },
      environments: targetNamespaces.map((ns, i) => ({
        name: `env${i}`,
        targets: [
          ns.includes('@')
            ? {
                namespace: ns.split('@')[0]!,
                clusterRef: { kind: 'GitopsCluster' as const, name: ns.split('@')[1]! },
              }
            : { namespace: ns },
        ],
      })),
    },
  };
}

const key = (cluster: string, namespace: string, name = 'app'): HintKey => ({
  cluster,
  group: 'helm.toolkit.fluxcd.io',
  kind: 'HelmRelease',
  namespace,
  name,
});

/** A controllable processor: every call waits until the test resolves it. */
function controllable<K>(): {
  process: (key: K) => Promise<ProcessResult>;
  calls: K[];
  pending: Deferred<ProcessResult>[];
} {
  const calls: K[] = [];
  const pending: Deferred<ProcessResult>[] = [];
  return {
    calls,
    pending,
    process: (k) => {
      calls.push(k);
      const d = deferred<ProcessResult>();
      pending.push(d);
      return d.promise;
    },
  };
}

describe('HintQueue', () => {
  function setup(): {
    index: PipelineIndex;
    queue: HintQueue;
    proc: ReturnType<typeof controllable<HintKey>>;
    offers: [HintSource, EnqueueResult][];
  } {
    const index = new PipelineIndex(config);
    index.upsert(pipeline('flux-system', 'p', ['dev', 'prod', 'prod@remote']));
    const proc = controllable<HintKey>();
    const offers: [HintSource, EnqueueResult][] = [];
    const queue = new HintQueue({
      hints,
      references: (k) => index.references(k),
      process: proc.process,
      scheduler: new FakeScheduler(),
      random: () => 0.5,
      onOffer: (_k, source, result) => offers.push([source, result]),
    });
    return { index, queue, proc, offers };
  }

  it('drops hints about unreferenced objects without ever calling the processor', async () => {
    const { queue, proc } = setup();
    for (const k of [key('mgmt', 'dev', 'other'), key('mgmt', 'qa'), key('elsewhere', 'dev')]) {
      expect(queue.offer(k, 'flux-event')).toBe('dropped-unreferenced');
    }
    await queue.idle();
    expect(proc.calls).toEqual([]);
    expect(queue.stats()).toMatchObject({ queued: 0, depth: 0, inFlight: 0 });
  });

  it('queues and coalesces referenced hints and reports each offer with its source', async () => {
    const { queue, proc, offers } = setup();
    expect(queue.offer(key('mgmt', 'dev'), 'flux-event')).toBe('queued');
    expect(queue.offer(key('mgmt', 'prod'), 'flux-event')).toBe('queued');
    expect(queue.offer(key('mgmt', 'prod'), 'legacy-webhook')).toBe('coalesced');
    await flush();
    expect(proc.calls).toEqual([key('mgmt', 'dev')]);
    expect(offers).toEqual([
      ['flux-event', 'queued'],
      ['flux-event', 'queued'],
      ['legacy-webhook', 'coalesced'],
    ]);
  });

  it('caps concurrency per cluster but lets other clusters proceed', async () => {
    const { queue, proc } = setup();
    queue.offer(key('mgmt', 'dev'), 'flux-event');
    queue.offer(key('mgmt', 'prod'), 'flux-event');
    queue.offer(key(remote, 'prod'), 'flux-event');
    await flush();
    expect(proc.calls.map((k) => k.cluster)).toEqual(['mgmt', remote]);
    proc.pending[0]?.resolve('done');
    await flush();
    expect(proc.calls.map((k) => `${k.cluster}/${k.namespace}`)).toEqual([
      'mgmt/dev',
      'flux-system/remote/prod',
      'mgmt/prod',
    ]);
  });

  it("answers 'full' beyond capacity waiting hints", () => {
    const { queue } = setup();
    queue.offer(key('mgmt', 'dev'), 'flux-event'); // starts at once: not waiting
    queue.offer(key(remote, 'prod'), 'flux-event'); // other cluster: starts too
    expect(queue.offer(key('mgmt', 'prod'), 'flux-event')).toBe('queued');
    expect(queue.offer(key('mgmt', 'env-x'), 'flux-event')).toBe('dropped-unreferenced');
    const busy = new HintQueue({
      hints: { ...hints, capacity: 1 },
      references: () => true,
      process: () => new Promise<ProcessResult>(() => undefined),
      scheduler: new FakeScheduler(),
    });
    expect(busy.offer(key('c', 'x'), 'flux-event')).toBe('queued'); // runs
    expect(busy.offer(key('c', 'y'), 'flux-event')).toBe('queued'); // waits
    expect(busy.offer(key('c', 'z'), 'flux-event')).toBe('full');
    expect(busy.stats()).toMatchObject({ depth: 1, inFlight: 1, rejected: 1 });
  });

  it('skips a hint whose Pipeline was removed while it waited', async () => {
    const { index, queue, proc } = setup();
    queue.offer(key('mgmt', 'dev'), 'flux-event');
    queue.offer(key('mgmt', 'prod'), 'flux-event');
    await flush(); // dev is being processed, prod waits behind it (one per cluster)
    index.remove('flux-system', 'p');
    proc.pending[0]?.resolve('done');
    await queue.idle();
    expect(proc.calls).toEqual([key('mgmt', 'dev')]);
  });

  it('stops taking hints', async () => {
    const { queue } = setup();
    await queue.stop();
    expect(queue.offer(key('mgmt', 'dev'), 'flux-event')).toBe('full');
  });
});

describe('PipelineQueue', () => {
  function setup(): {
    index: PipelineIndex;
    queue: PipelineQueue;
    scheduler: FakeScheduler;
    proc: ReturnType<typeof controllable<string>>;
  } {
    const index = new PipelineIndex(config);
    index.upsert(pipeline('ns', 'a', ['dev']));
    index.upsert(pipeline('ns', 'b', ['dev']));
    index.upsert(pipeline('ns', 'c', ['dev']));
    const proc = controllable<string>();
    const scheduler = new FakeScheduler();
    const queue = new PipelineQueue({
      hints,
      globalConcurrency: 1,
      has: (ns, name) => index.has(ns, name),
      process: proc.process,
      scheduler,
      random: () => 0.5,
    });
    return { index, queue, scheduler, proc };
  }

  it("answers 'unknown' for Pipelines not in the index and never processes them", async () => {
    const { queue, proc } = setup();
    expect(queue.requestPipeline('ns', 'zzz', 'legacy-webhook')).toBe('unknown');
    expect(queue.schedule('ns/zzz', 100)).toBe('unknown');
    expect(queue.schedule('not-an-id', 100)).toBe('unknown');
    await queue.idle();
    expect(proc.calls).toEqual([]);
  });

  it('queues known Pipelines, coalescing repeats, and refuses beyond capacity', async () => {
    const { queue, proc } = setup();
    expect(queue.requestPipeline('ns', 'a', 'legacy-webhook')).toBe('queued'); // runs
    expect(queue.requestPipeline('ns', 'b', 'resync')).toBe('queued');
    expect(queue.requestPipeline('ns', 'b', 'resync')).toBe('queued'); // coalesced
    expect(queue.requestPipeline('ns', 'c', 'resync')).toBe('queued');
    expect(queue.stats().coalesced).toBe(1);
    expect(queue.schedule('ns/a', 0)).toBe('queued'); // a is running: one more run owed
    await flush();
    expect(proc.calls).toEqual(['ns/a']);
    const full = new PipelineQueue({
      hints: { ...hints, capacity: 0 },
      has: () => true,
      process: proc.process,
    });
    expect(full.requestPipeline('ns', 'a', 'resync')).toBe('full');
  });

  it('runs scheduled re-checks at their time and skips Pipelines deleted meanwhile', async () => {
    const { index, queue, scheduler, proc } = setup();
    expect(queue.schedule('ns/a', 300)).toBe('queued');
    expect(queue.schedule('ns/b', 100)).toBe('queued');
    expect(queue.schedule('ns/a', 200)).toBe('coalesced');
    index.remove('ns', 'b');
    scheduler.advance(150);
    await flush();
    expect(proc.calls).toEqual([]); // b was deleted: no re-check
    scheduler.advance(50);
    await flush();
    expect(proc.calls).toEqual(['ns/a']);
    proc.pending[0]?.resolve('done');
    await queue.idle();
    scheduler.advance(1_000);
    await flush();
    expect(proc.calls).toEqual(['ns/a']);
    await queue.stop();
  });
});
