/**
 * PipelineWatcher's restarts on fake informers and hand-driven time: a failed informer is
 * started again after 1 s, then every 2 s; it counts as synced, and says it resumed, only once
 * a start really listed and watched, never after a start whose list or watch failed again.
 */
import { describe, expect, it } from 'vitest';
import { PipelineWatcher, type PipelineEventHandler } from '../../../src/kube/pipeline-watch.js';
import { fakeInformers, fakeManagement, type FakeInformer } from '../../support/fake-informer.js';
import { FakeScheduler, flush } from '../../support/fake-scheduler.js';

function setup() {
  const scheduler = new FakeScheduler();
  const { made, factory } = fakeInformers();
  const { kubeConfig, calls, pages } = fakeManagement(() => [
    { apiVersion: 'pipelines.weave.works/v1alpha1', metadata: { namespace: 'apps', name: 'a' } },
  ]);
  const seen = { upserts: 0, retries: [] as number[], resumed: 0 };
  const handler: PipelineEventHandler = {
    upsert: () => (seen.upserts += 1),
    remove: () => undefined,
    error: (_message, retryInMs) => seen.retries.push(retryInMs),
    resumed: () => (seen.resumed += 1),
  };
  const watcher = new PipelineWatcher(kubeConfig, [], handler, calls, {
    pages,
    scheduler,
    informers: factory,
  });
  const informer = (): FakeInformer => {
    const [only] = made;
    if (only === undefined) throw new Error('no informer made');
    return only;
  };
  const advance = async (ms: number) => {
    scheduler.advance(ms);
    await flush();
  };
  return { watcher, seen, informer, advance };
}

describe('PipelineWatcher restarts', () => {
  it('does not count a restart whose watch failed again, and backs off to 2 s', async () => {
    const { watcher, seen, informer, advance } = setup();
    await watcher.start();
    expect(watcher.synced()).toBe(true);
    expect(seen.upserts).toBe(1);

    informer().down = true;
    informer().breakWatch();
    expect(watcher.synced()).toBe(false);
    for (let i = 0; i < 4; i++) await advance(seen.retries.at(-1) ?? 0);
    // Every start failed: not synced, never resumed, the wait doubled and stayed capped.
    expect(informer().starts).toBe(5);
    expect(seen.retries).toEqual([1000, 2000, 2000, 2000, 2000]);
    expect(watcher.synced()).toBe(false);
    expect(watcher.notLoadedBecause()).toMatch(/ECONNREFUSED|unreachable/);
    expect(seen.resumed).toBe(0);

    informer().down = false;
    await advance(1999);
    expect(seen.resumed).toBe(0);
    await advance(1);
    expect(seen.resumed).toBe(1);
    expect(watcher.synced()).toBe(true);
    expect(watcher.notLoadedBecause()).toBeUndefined();
    // A re-watch from the kept resourceVersion: no second LIST.
    expect(informer().lists).toBe(1);

    // The next failure starts from 1 s again.
    informer().breakWatch();
    expect(seen.retries.at(-1)).toBe(1000);
    await watcher.stop();
  });

  it('says resumed when an informer lists again after a failure (a 410 reset)', async () => {
    const { watcher, seen, informer, advance } = setup();
    await watcher.start();
    informer().expire();
    informer().down = true;
    informer().breakWatch();
    await advance(1000);
    expect(informer().lists).toBe(1);
    expect(seen.resumed).toBe(0);

    informer().down = false;
    await advance(2000);
    expect(informer().lists).toBe(2);
    expect(seen.upserts).toBe(2);
    expect(seen.resumed).toBe(1);
    expect(watcher.synced()).toBe(true);
    await watcher.stop();
  });

  it('does not say resumed for the first successful start', async () => {
    const { watcher, seen } = setup();
    await watcher.start();
    expect(watcher.synced()).toBe(true);
    expect(seen.resumed).toBe(0);
    await watcher.stop();
  });
});

describe('PipelineWatcher and the informer cache', () => {
  it('hands the handler the very object the informer keeps, so it may make it its own', async () => {
    const listed = {
      apiVersion: 'pipelines.weave.works/v1alpha1',
      metadata: { namespace: 'apps', name: 'a', resourceVersion: '7' },
      status: { observedGeneration: 1 },
    };
    const { made, factory } = fakeInformers();
    const { kubeConfig, calls, pages } = fakeManagement(() => [listed]);
    const received: unknown[] = [];
    const handler: PipelineEventHandler = {
      upsert: (pipeline) => received.push(pipeline),
      remove: () => undefined,
      error: () => undefined,
      resumed: () => undefined,
    };
    const watcher = new PipelineWatcher(kubeConfig, [], handler, calls, {
      pages,
      scheduler: new FakeScheduler(),
      informers: factory,
    });
    await watcher.start();
    expect(made).toHaveLength(1);
    // Not a copy: the catalog keeps it as the Pipeline's head, and drops its status from it.
    expect(received).toHaveLength(1);
    expect(received[0]).toBe(listed);
    expect(listed).toMatchObject({ kind: 'Pipeline', status: { observedGeneration: 1 } });
    await watcher.stop();
  });
});
