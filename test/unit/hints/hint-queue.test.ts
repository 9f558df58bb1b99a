import { describe, expect, it } from 'vitest';
import { PipelineCatalog } from '../../../src/catalog/catalog.js';
import { HintQueue } from '../../../src/hints/hint-queue.js';
import { PipelineQueue } from '../../../src/hints/pipeline-queue.js';
import type { EnqueueResult, HintSource } from '../../../src/hints/sinks.js';
import { pipelineId, type PipelineId } from '../../../src/pipeline/id.js';
import type { ObjectKey } from '../../../src/pipeline/object-key.js';
import type { Pipeline } from '../../../src/pipeline/pipeline-resource.js';
import type { ProcessResult } from '../../../src/queue/queue-model.js';
import { FakeScheduler, deferred, flush } from '../../support/fake-scheduler.js';
import type { Deferred } from '../../support/fake-scheduler.js';

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

const key = (cluster: string, namespace: string, name = 'app'): ObjectKey => ({
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
    index: PipelineCatalog;
    queue: HintQueue;
    proc: ReturnType<typeof controllable<ObjectKey>>;
    offers: [HintSource, EnqueueResult][];
  } {
    const index = new PipelineCatalog(config);
    index.upsert(pipeline('flux-system', 'p', ['dev', 'prod', 'prod@remote']));
    const proc = controllable<ObjectKey>();
    const offers: [HintSource, EnqueueResult][] = [];
    const queue = new HintQueue({
      hints,
      index,
      reads: { read: proc.process },
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
      index: { references: () => true },
      reads: { read: () => new Promise<ProcessResult>(() => undefined) },
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
    index.remove(pipelineId({ namespace: 'flux-system', name: 'p' }));
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

const id = (name: string): PipelineId => pipelineId({ namespace: 'ns', name });

describe('PipelineQueue', () => {
  function setup(): {
    index: PipelineCatalog;
    queue: PipelineQueue;
    scheduler: FakeScheduler;
    proc: ReturnType<typeof controllable<PipelineId>>;
  } {
    const index = new PipelineCatalog(config);
    index.upsert(pipeline('ns', 'a', ['dev']));
    index.upsert(pipeline('ns', 'b', ['dev']));
    index.upsert(pipeline('ns', 'c', ['dev']));
    const proc = controllable<PipelineId>();
    const scheduler = new FakeScheduler();
    const queue = new PipelineQueue({
      hints,
      globalConcurrency: 1,
      loaded: index,
      reconciler: { reconcile: proc.process },
      scheduler,
      random: () => 0.5,
    });
    return { index, queue, scheduler, proc };
  }

  it("answers 'unknown' for Pipelines not in the catalog and never processes them", async () => {
    const { queue, proc } = setup();
    expect(queue.requestPipeline(id('zzz'), 'legacy-webhook')).toBe('unknown');
    await queue.idle();
    expect(proc.calls).toEqual([]);
  });

  it('queues known Pipelines, coalescing repeats, and refuses beyond capacity', async () => {
    const { queue, proc } = setup();
    expect(queue.requestPipeline(id('a'), 'legacy-webhook')).toBe('queued'); // runs
    expect(queue.requestPipeline(id('b'), 'resync')).toBe('queued');
    expect(queue.requestPipeline(id('b'), 'resync')).toBe('queued'); // coalesced
    expect(queue.requestPipeline(id('c'), 'resync')).toBe('queued');
    expect(queue.stats().coalesced).toBe(1);
    await flush();
    expect(proc.calls).toEqual([id('a')]);
    const full = new PipelineQueue({
      hints: { ...hints, capacity: 0 },
      loaded: { has: () => true },
      reconciler: { reconcile: proc.process },
    });
    expect(full.requestPipeline(id('a'), 'resync')).toBe('full');
  });

  it('runs a re-check again when its run asks to be requeued, not before', async () => {
    const { queue, scheduler, proc } = setup();
    queue.requestPipeline(id('a'), 'resync');
    await flush();
    proc.pending[0]?.resolve({ requeueAfterMs: 300 });
    await flush();
    scheduler.advance(299);
    await flush();
    expect(proc.calls).toEqual([id('a')]);
    scheduler.advance(1);
    await flush();
    expect(proc.calls).toEqual([id('a'), id('a')]);
    proc.pending[1]?.resolve('done');
    await queue.idle();
    scheduler.advance(10_000);
    await flush();
    expect(proc.calls).toHaveLength(2);
  });

  it('lets a request made meanwhile run before a requeue comes due', async () => {
    const { queue, scheduler, proc } = setup();
    queue.requestPipeline(id('a'), 'resync');
    await flush();
    proc.pending[0]?.resolve({ requeueAfterMs: 5_000 });
    await flush();
    queue.requestPipeline(id('a'), 'hint');
    await flush();
    expect(proc.calls).toEqual([id('a'), id('a')]);
    proc.pending[1]?.resolve('done');
    await queue.idle();
    scheduler.advance(5_000);
    await flush();
    expect(proc.calls).toHaveLength(2);
  });

  it('skips a requeued re-check whose Pipeline was deleted meanwhile', async () => {
    const { index, queue, scheduler, proc } = setup();
    queue.requestPipeline(id('b'), 'resync');
    await flush();
    proc.pending[0]?.resolve({ requeueAfterMs: 100 });
    await flush();
    index.remove(id('b'));
    scheduler.advance(100);
    await queue.idle();
    expect(proc.calls).toEqual([id('b')]);
    await queue.stop();
  });
});
