/**
 * VersionListWatch on a fake WATCH request: it reports adds, updates and deletes as
 * client-node's informer does, keeps none of the objects, and LISTs again after a 410.
 */
import type { KubernetesListObject, KubernetesObject } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { VersionListWatch, type WatchRequest } from '../../../src/kube/version-list-watch.js';

type Phase = 'ADDED' | 'MODIFIED' | 'DELETED' | 'ERROR' | 'BOOKMARK';

function pipeline(name: string, resourceVersion: string): KubernetesObject {
  return { metadata: { namespace: 'apps', name, resourceVersion } };
}

/** A WATCH that the test drives: send() delivers an event, end() closes it. */
function fakeWatch() {
  const requests: Record<string, string>[] = [];
  let send: (phase: Phase, obj: KubernetesObject) => void = () => undefined;
  let end: (err: unknown) => void = () => undefined;
  const watch: WatchRequest = {
    watch: (_path, query, callback, done) => {
      requests.push(query as Record<string, string>);
      send = callback;
      end = done;
      return Promise.resolve(new AbortController());
    },
  };
  return {
    watch,
    requests,
    send: (phase: Phase, obj: KubernetesObject) => {
      send(phase, obj);
    },
    end: (err: unknown) => {
      end(err);
    },
  };
}

function setup(items: () => KubernetesObject[]) {
  const w = fakeWatch();
  let lists = 0;
  const list = (): Promise<KubernetesListObject<KubernetesObject>> => {
    lists += 1;
    return Promise.resolve({
      items: items(),
      metadata: { resourceVersion: `list-${String(lists)}` },
    });
  };
  const informer = new VersionListWatch(w.watch, '/apis/x', list, 'shard=a');
  const seen: string[] = [];
  for (const verb of ['add', 'update', 'delete'] as const)
    informer.on(verb, (obj) => seen.push(`${verb} ${obj.metadata?.name ?? ''}`));
  return { informer, seen, w, lists: () => lists };
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('VersionListWatch', () => {
  it('lists, then watches from the list, reporting each new version once', async () => {
    const { informer, seen, w } = setup(() => [pipeline('a', '1'), pipeline('b', '1')]);
    await informer.start();
    expect(seen).toEqual(['add a', 'add b']);
    expect(w.requests).toEqual([{ resourceVersion: 'list-1', labelSelector: 'shard=a' }]);
    w.send('MODIFIED', pipeline('a', '2'));
    w.send('MODIFIED', pipeline('a', '2'));
    w.send('ADDED', pipeline('c', '3'));
    w.send('DELETED', pipeline('b', '4'));
    w.send('DELETED', pipeline('b', '4'));
    expect(seen).toEqual(['add a', 'add b', 'update a', 'add c', 'delete b']);
    expect(informer.size).toBe(2);
  });

  it('resumes a closed watch from the last version; after a 410 lists again and reports what went', async () => {
    let items = [pipeline('a', '1'), pipeline('b', '1')];
    const { informer, seen, w, lists } = setup(() => items);
    await informer.start();
    w.send('MODIFIED', pipeline('a', '5'));
    w.end(null);
    await settle();
    expect(lists()).toBe(1);
    expect(w.requests.at(-1)?.resourceVersion).toBe('5');
    items = [pipeline('a', '5'), pipeline('c', '6')];
    w.send('ERROR', { code: 410 } as KubernetesObject);
    w.end({ statusCode: 410 });
    await settle();
    expect(lists()).toBe(2);
    expect(seen.slice(3)).toEqual(['delete b', 'add c']);
    expect(w.requests.at(-1)?.resourceVersion).toBe('list-2');
  });

  it('reports a failed list through error, and starts nothing once stopped', async () => {
    const w = fakeWatch();
    const informer = new VersionListWatch(w.watch, '/apis/x', () =>
      Promise.reject(new Error('refused')),
    );
    const errors: unknown[] = [];
    informer.on('error', (err) => errors.push(err));
    await informer.start();
    expect(errors).toHaveLength(1);
    expect(w.requests).toHaveLength(0);
    const { informer: ok, w: okWatch } = setup(() => [pipeline('a', '1')]);
    await ok.start();
    await ok.stop();
    okWatch.end(null);
    await settle();
    expect(okWatch.requests).toHaveLength(1);
  });
});
