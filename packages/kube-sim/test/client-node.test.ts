/**
 * kube-sim against the real @kubernetes/client-node 1.4: CRUD on a custom resource, merge
 * patch, 409 on a stale resourceVersion, the status subresource, generation bumps, and an
 * informer that survives a dropped watch and re-lists after 410 Expired.
 */
import { fileURLToPath } from 'node:url';
import {
  ApiException,
  CustomObjectsApi,
  KubeConfig,
  makeInformer,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import type { KubernetesListObject } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyFiles, startFleet } from '../src/index.js';
import type { Fleet, SimCluster } from '../src/index.js';

const CRD = fileURLToPath(
  new URL(
    '../../../test/fixtures/weave-gitops/pipelines.weave.works_pipelines.yaml',
    import.meta.url,
  ),
);
const group = 'pipelines.weave.works';
const version = 'v1alpha1';
const plural = 'pipelines';
const namespace = 'apps';

/** A plain-object view (client-node's V1ObjectMeta is a class; tests build literals). */
interface Pipeline {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
  };
  spec: Record<string, unknown>;
  status?: Record<string, unknown>;
}

function pipeline(name: string, labels: Record<string, string> = {}): Pipeline {
  return {
    apiVersion: `${group}/${version}`,
    kind: 'Pipeline',
    metadata: { name, namespace, labels },
    spec: {
      appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'podinfo' },
      environments: [{ name: 'dev', targets: [{ namespace: 'apps' }] }],
    },
  };
}

/** Resolves when `predicate` holds, re-checking on every informer callback (no timers). */
function until(check: () => boolean, subscribe: (wake: () => void) => void): Promise<void> {
  return new Promise((resolve) => {
    if (check()) {
      resolve();
      return;
    }
    subscribe(() => {
      if (check()) resolve();
    });
  });
}

let fleet: Fleet;
let cluster: SimCluster;
let api: CustomObjectsApi;
let kc: KubeConfig;

beforeAll(async () => {
  fleet = await startFleet({ clusters: ['management', 'dev'] });
  cluster = fleet.cluster('management');
  await applyFiles(cluster, [CRD]);
  cluster.ensureNamespace(namespace);
  kc = new KubeConfig();
  kc.loadFromString(fleet.kubeconfig());
  api = kc.makeApiClient(CustomObjectsApi);
});

afterAll(async () => {
  await fleet.close();
});

describe('kube-sim with @kubernetes/client-node', () => {
  it('creates, gets, lists with a label selector, merge-patches and replaces a custom resource', async () => {
    const created = (await api.createNamespacedCustomObject({
      group,
      version,
      namespace,
      plural,
      body: pipeline('p1', { team: 'a' }),
    })) as Pipeline;
    expect(created.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.metadata.generation).toBe(1);
    await api.createNamespacedCustomObject({
      group,
      version,
      namespace,
      plural,
      body: pipeline('p2', { team: 'b' }),
    });

    const got = (await api.getNamespacedCustomObject({
      group,
      version,
      namespace,
      plural,
      name: 'p1',
    })) as Pipeline;
    expect(got.metadata.resourceVersion).toBe(created.metadata.resourceVersion);

    const list = (await api.listNamespacedCustomObject({
      group,
      version,
      namespace,
      plural,
      labelSelector: 'team in (a)',
    })) as KubernetesListObject<Pipeline>;
    expect(list.items.map((p) => p.metadata.name)).toEqual(['p1']);
    expect(Number(list.metadata?.resourceVersion)).toBeGreaterThanOrEqual(
      Number(created.metadata.resourceVersion),
    );

    const patched = (await api.patchNamespacedCustomObject(
      {
        group,
        version,
        namespace,
        plural,
        name: 'p1',
        body: { metadata: { labels: { stage: 'x' } }, spec: { appRef: { name: 'other' } } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    )) as Pipeline;
    expect(patched.metadata.labels).toEqual({ team: 'a', stage: 'x' });
    expect((patched.spec.appRef as Record<string, unknown>).name).toBe('other');
    expect((patched.spec.appRef as Record<string, unknown>).kind).toBe('HelmRelease');
    expect(patched.metadata.generation).toBe(2);

    const replaced = (await api.replaceNamespacedCustomObject({
      group,
      version,
      namespace,
      plural,
      name: 'p1',
      body: { ...patched, spec: { ...patched.spec, environments: [] } },
    })) as Pipeline;
    expect(replaced.spec.environments).toEqual([]);
    expect(replaced.metadata.generation).toBe(3);
    expect(Number(replaced.metadata.resourceVersion)).toBeGreaterThan(
      Number(patched.metadata.resourceVersion),
    );
  });

  it('answers a stale resourceVersion with 409 Conflict and the real message', async () => {
    const current = (await api.getNamespacedCustomObject({
      group,
      version,
      namespace,
      plural,
      name: 'p2',
    })) as Pipeline;
    await api.replaceNamespacedCustomObject({
      group,
      version,
      namespace,
      plural,
      name: 'p2',
      body: { ...current, metadata: { ...current.metadata, labels: { team: 'c' } } },
    });
    const stale = api.replaceNamespacedCustomObject({
      group,
      version,
      namespace,
      plural,
      name: 'p2',
      body: { ...current, metadata: { ...current.metadata, labels: { team: 'd' } } },
    });
    const err = await stale.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiException);
    const apiErr = err as ApiException<string>;
    expect(apiErr.code).toBe(409);
    const body = JSON.parse(apiErr.body) as { kind: string; reason: string; message: string };
    expect(body.kind).toBe('Status');
    expect(body.reason).toBe('Conflict');
    expect(body.message).toBe(
      'Operation cannot be fulfilled on pipelines.pipelines.weave.works "p2": the object has been modified; please apply your changes to the latest version and try again',
    );
  });

  it('keeps spec and status apart through the status subresource, bumping generation only on spec', async () => {
    const base = (await api.getNamespacedCustomObject({
      group,
      version,
      namespace,
      plural,
      name: 'p2',
    })) as Pipeline;
    const gen = base.metadata.generation;
    // Status sent to the main resource is ignored.
    const main = (await api.patchNamespacedCustomObject(
      {
        group,
        version,
        namespace,
        plural,
        name: 'p2',
        body: { status: { observedGeneration: 99 } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    )) as Pipeline;
    // The CRD's schema defaults status to {observedGeneration: -1}; the 99 never lands.
    expect(main.status).toEqual({ observedGeneration: -1 });
    expect(main.metadata.generation).toBe(gen);
    // Spec sent to /status is ignored; status is written; generation does not move.
    const status = (await api.replaceNamespacedCustomObjectStatus({
      group,
      version,
      namespace,
      plural,
      name: 'p2',
      body: {
        ...main,
        spec: { appRef: { apiVersion: 'v1', kind: 'X', name: 'ignored' } },
        status: { observedGeneration: gen },
      },
    })) as Pipeline;
    expect(status.status).toEqual({ observedGeneration: gen });
    expect((status.spec.appRef as Record<string, unknown>).name).toBe('podinfo');
    expect(status.metadata.generation).toBe(gen);
    const patchedStatus = (await api.patchNamespacedCustomObjectStatus(
      {
        group,
        version,
        namespace,
        plural,
        name: 'p2',
        body: {
          status: {
            conditions: [
              {
                type: 'Ready',
                status: 'True',
                reason: 'Ok',
                message: '',
                lastTransitionTime: '2025-01-01T00:00:00Z',
              },
            ],
          },
        },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    )) as Pipeline;
    expect(patchedStatus.status?.observedGeneration).toBe(gen);
    expect(patchedStatus.status?.conditions).toHaveLength(1);
  });

  it('drives an informer through add/update/delete, a dropped watch and a 410 re-list', async () => {
    const path = `/apis/${group}/${version}/namespaces/${namespace}/${plural}`;
    const listFn = (): Promise<KubernetesListObject<Pipeline>> =>
      api.listNamespacedCustomObject({ group, version, namespace, plural }) as Promise<
        KubernetesListObject<Pipeline>
      >;
    const informer = makeInformer<Pipeline>(kc, path, listFn);
    const seen: string[] = [];
    const wakers = new Set<() => void>();
    const wake = (): void => {
      for (const w of [...wakers]) w();
    };
    const on = (check: () => boolean): Promise<void> => until(check, (w) => wakers.add(w));
    informer.on('add', (o) => {
      seen.push(`add:${o.metadata.name}`);
      wake();
    });
    informer.on('update', (o) => {
      seen.push(`update:${o.metadata.name}:${JSON.stringify(o.metadata.labels ?? {})}`);
      wake();
    });
    informer.on('delete', (o) => {
      seen.push(`delete:${o.metadata.name}`);
      wake();
    });
    informer.on('connect', wake);
    informer.on('error', wake);
    await informer.start();
    await on(() => seen.includes('add:p1') && seen.includes('add:p2'));

    await api.createNamespacedCustomObject({
      group,
      version,
      namespace,
      plural,
      body: pipeline('p3'),
    });
    await on(() => seen.includes('add:p3'));
    await api.patchNamespacedCustomObject(
      { group, version, namespace, plural, name: 'p3', body: { metadata: { labels: { v: '1' } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await on(() => seen.includes('update:p3:{"v":"1"}'));

    // Dropped watch: the informer re-watches from its resourceVersion and misses nothing.
    expect(cluster.faults.closeWatches()).toBe(1);
    cluster.apply({ ...pipeline('p4'), metadata: { name: 'p4', namespace } });
    await on(() => seen.includes('add:p4'));

    // 410: history compacted while the watch is down, then a change; the informer must re-list.
    const listsBefore = cluster.requests.count({
      verb: 'list',
      resource: 'pipelines.pipelines.weave.works',
    });
    await api.deleteNamespacedCustomObject({ group, version, namespace, plural, name: 'p3' });
    await on(() => seen.includes('delete:p3'));
    await cluster.faults.set({ hang: { verbs: ['watch'] } });
    cluster.faults.closeWatches();
    cluster.delete(`${group}/${version}`, 'Pipeline', namespace, 'p4');
    cluster.compact();
    await cluster.faults.clear('hang');
    await on(() => seen.includes('delete:p4'));
    expect(
      cluster.requests.count({ verb: 'list', resource: 'pipelines.pipelines.weave.works' }),
    ).toBeGreaterThan(listsBefore);
    expect(
      informer
        .list(namespace)
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['p1', 'p2']);
    // And the informer is watching again after the re-list.
    cluster.apply({ ...pipeline('p5'), metadata: { name: 'p5', namespace } });
    await on(() => seen.includes('add:p5'));
    await informer.stop();
  });
});
