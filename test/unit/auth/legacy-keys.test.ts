/**
 * The legacy webhook's keys are read ahead and served from memory: one read per Secret however
 * many ask at once, absences remembered, the last good key kept while a Secret is unreadable.
 */
import { describe, expect, it } from 'vitest';
import { LegacyKeyStore, type SecretKeyReader } from '../../../src/auth/legacy-keys.js';
import { pipelineId } from '../../../src/pipeline/id.js';
import type { Pipeline } from '../../../src/pipeline/pipeline-resource.js';
import { deferred } from '../../support/fake-scheduler.js';

function pipeline(name: string, secret?: string): Pipeline {
  return {
    apiVersion: 'pipelines.weave.works/v1alpha1',
    kind: 'Pipeline',
    metadata: { namespace: 'apps', name },
    spec: {
      appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name },
      promotion: {
        strategy: {
          notification: {},
          ...(secret === undefined ? {} : { secretRef: { name: secret } }),
        },
      },
      environments: [],
    },
  };
}

const id = (name: string) => pipelineId({ namespace: 'apps', name });

/** A store whose every Secret read waits for `gate`; `reads()` counts the reads started. */
function gatedStore() {
  let reads = 0;
  const gate = deferred<Buffer | undefined>();
  const store = new LegacyKeyStore(() => {
    reads++;
    return gate.promise;
  });
  return { store, gate, reads: () => reads };
}

describe('LegacyKeyStore', () => {
  it('serves nothing before a Pipeline is tracked, and its key once read', async () => {
    const reads: string[] = [];
    const store = new LegacyKeyStore((ns, name, key) => {
      reads.push(`${ns}/${name}/${key}`);
      return Promise.resolve(Buffer.from('k1'));
    });
    expect(store.keyFor(id('a'))).toBeUndefined();
    await store.track(id('a'), pipeline('a', 'legacy'));
    expect(store.keyFor(id('a'))?.toString()).toBe('k1');
    expect(reads).toEqual(['apps/legacy/hmac-key']);
  });

  it('reads a Secret shared by many Pipelines once, however many ask at once', async () => {
    const { store, gate, reads } = gatedStore();
    const tracked = ['a', 'b', 'c'].map((n) => store.track(id(n), pipeline(n, 'shared')));
    gate.resolve(Buffer.from('k'));
    await Promise.all(tracked);
    expect(reads()).toBe(1);
    expect(['a', 'b', 'c'].map((n) => store.keyFor(id(n))?.toString())).toEqual(['k', 'k', 'k']);
  });

  it('remembers an absence, keeps the last key while a read fails, and refreshes', async () => {
    let answer: () => Promise<Buffer | undefined> = () => Promise.resolve(undefined);
    const read: SecretKeyReader = () => answer();
    const store = new LegacyKeyStore(read);
    await store.track(id('a'), pipeline('a', 'legacy'));
    expect(store.keyFor(id('a'))).toBeUndefined();
    answer = () => Promise.resolve(Buffer.from('new'));
    await store.refresh();
    expect(store.keyFor(id('a'))?.toString()).toBe('new');
    answer = () => Promise.reject(new Error('500 from the API server'));
    await store.refresh();
    expect(store.keyFor(id('a'))?.toString()).toBe('new');
  });

  it('forgets a Pipeline that no longer names a Secret', async () => {
    const store = new LegacyKeyStore(() => Promise.resolve(Buffer.from('k')));
    await store.track(id('a'), pipeline('a', 'legacy'));
    await store.track(id('a'), pipeline('a'));
    expect(store.keyFor(id('a'))).toBeUndefined();
  });

  it('follows a read that was in flight when a refresh began with a fresh one', async () => {
    const gates = [deferred<Buffer | undefined>(), deferred<Buffer | undefined>()];
    let reads = 0;
    const store = new LegacyKeyStore(() => {
      const gate = gates[reads++];
      return gate === undefined ? Promise.resolve(Buffer.from('late')) : gate.promise;
    });
    // A read starts while the API server fails; the refresh is asked for meanwhile.
    const tracked = store.track(id('a'), pipeline('a', 'legacy'));
    const refreshed = store.refresh();
    gates[0]?.reject(new Error('500'));
    await tracked;
    expect(store.keyFor(id('a'))).toBeUndefined();
    gates[1]?.resolve(Buffer.from('k2'));
    await refreshed;
    expect(reads).toBe(2);
    expect(store.keyFor(id('a'))?.toString()).toBe('k2');
  });

  it('still shares one read among loads that are not refreshes', async () => {
    const { store, gate, reads } = gatedStore();
    const both = [
      store.track(id('a'), pipeline('a', 's')),
      store.track(id('b'), pipeline('b', 's')),
    ];
    gate.resolve(Buffer.from('k'));
    await Promise.all(both);
    await store.refresh();
    expect(reads()).toBe(2);
  });

  it('does not read again when the same Pipeline comes back with the same reference', async () => {
    let reads = 0;
    const store = new LegacyKeyStore(() => {
      reads++;
      return Promise.resolve(reads === 1 ? Buffer.from('k') : undefined);
    });
    // A status write comes back from the watch as an update of the same Pipeline.
    for (let i = 0; i < 3; i++) await store.track(id('a'), pipeline('a', 'legacy'));
    expect(reads).toBe(1);
    // A changed reference is read at once.
    await store.track(id('a'), pipeline('a', 'rotated'));
    expect(reads).toBe(2);
  });
});
