import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { ClusterConfig } from '../../../src/config/gateway-config.js';
import { objectKeyId, plainKey, type ObjectKey } from '../../../src/pipeline/object-key.js';
import { PipelineCatalog } from '../../../src/catalog/catalog.js';
import type { CatalogTarget, ListScope } from '../../../src/catalog/targets.js';
import { parsePipelineId, pipelineId, type PipelineId } from '../../../src/pipeline/id.js';
import type { Pipeline, PipelineEnvironment } from '../../../src/pipeline/pipeline-resource.js';
import { planScopes } from '../../../src/verify/scope-plan.js';

/** The catalog's LIST scopes, one per (cluster, group, kind, namespace): never widened. */
function scopesOf(catalog: PipelineCatalog): ListScope[] {
  return [...planScopes(catalog.allTargets(), () => true).keys()];
}

const id = (text: string): PipelineId =>
  parsePipelineId(text) ?? pipelineId({ namespace: '', name: text });

const samplesDir = join(import.meta.dirname, '../../fixtures/weave-gitops/samples');

function samplePipelines(): Pipeline[] {
  return readdirSync(samplesDir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .flatMap((f) => parseAllDocuments(readFileSync(join(samplesDir, f), 'utf8')))
    .map((doc) => doc.toJS() as { kind?: string })
    .filter((obj): obj is Pipeline => obj.kind === 'Pipeline');
}

function cluster(name: string, gitopsCluster?: { namespace: string; name: string }): ClusterConfig {
  return { name, gitopsCluster, hmacKeys: [], jwtSubjects: [] };
}

const config = {
  management: { name: 'mgmt' },
  clusters: [
    cluster('staging', { namespace: 'flux-system', name: 'staging-cluster' }),
    cluster('prod-eu', { namespace: 'clusters', name: 'prod-eu' }),
  ],
};

/** A Pipeline with the given environments; appRef defaults to a v2beta1 HelmRelease. */
function pipeline(
  namespace: string,
  name: string,
  environments: PipelineEnvironment[],
  appRef = { apiVersion: 'helm.toolkit.fluxcd.io/v2beta1', kind: 'HelmRelease', name: 'podinfo' },
): Pipeline {
  return {
    apiVersion: 'pipelines.weave.works/v1alpha1',
    kind: 'Pipeline',
    metadata: { namespace, name },
    spec: { appRef, environments },
  };
}

const podinfo = {
  apiVersion: 'helm.toolkit.fluxcd.io/v2beta1',
  kind: 'HelmRelease',
  name: 'podinfo',
};

const helm = (cluster: string, namespace: string, name = 'podinfo'): ObjectKey => ({
  cluster,
  group: 'helm.toolkit.fluxcd.io',
  kind: 'HelmRelease',
  namespace,
  name,
});

describe('PipelineCatalog on the weave-gitops samples', () => {
  const samples = samplePipelines();
  const index = new PipelineCatalog(config);
  for (const p of samples) index.upsert(p);

  it('indexes every sample Pipeline', () => {
    expect(index.ids()).toEqual([
      'default/podinfo-test',
      'flux-system/podinfo-github',
      'flux-system/podinfo-gitlab',
    ]);
    expect(index.size).toBe(3);
    expect(
      index.get(pipelineId({ namespace: 'flux-system', name: 'podinfo-github' }))?.spec.appRef.name,
    ).toBe('podinfo');
  });

  it('derives one target per environment target on the management cluster', () => {
    const targets = index.targetsOf(id('flux-system/podinfo-github'));
    // One object is the ref (to read), the key (to store under) and the target itself.
    expect(targets.every((t) => (t.ref as unknown) === t.key && (t.key as unknown) === t)).toBe(
      true,
    );
    const read = ({ key, ref }: CatalogTarget) => ({
      key: plainKey(key),
      ref: { apiVersion: ref.apiVersion, kind: ref.kind, namespace: ref.namespace, name: ref.name },
    });
    expect(
      targets.map((t) => ({
        ...read(t),
        env: t.environment,
        index: t.index,
        at: t.location,
        id: t.id,
      })),
    ).toEqual([
      {
        env: 'dev',
        index: 0,
        at: { cluster: 'mgmt', namespace: 'dev-github' },
        key: helm('mgmt', 'dev-github'),
        ref: {
          apiVersion: 'helm.toolkit.fluxcd.io/v2beta1',
          kind: 'HelmRelease',
          namespace: 'dev-github',
          name: 'podinfo',
        },
        id: objectKeyId(helm('mgmt', 'dev-github')),
      },
      {
        env: 'prod',
        index: 0,
        at: { cluster: 'mgmt', namespace: 'prod-github' },
        key: helm('mgmt', 'prod-github'),
        ref: {
          apiVersion: 'helm.toolkit.fluxcd.io/v2beta1',
          kind: 'HelmRelease',
          namespace: 'prod-github',
          name: 'podinfo',
        },
        id: objectKeyId(helm('mgmt', 'prod-github')),
      },
    ]);
  });

  it('matches a v2 event to a v2beta1 appRef: the key carries the group only', () => {
    expect(index.references(helm('mgmt', 'prod-gitlab'))).toBe(true);
    expect(index.pipelinesFor(helm('mgmt', 'prod-gitlab'))).toEqual(['flux-system/podinfo-gitlab']);
  });

  it('maps one object referenced by two environments of one Pipeline to that Pipeline once', () => {
    // config-testdata deploys dev and prod to the same namespace of the same cluster.
    expect(index.targetsOf(id('default/podinfo-test')).map((t) => t.environment)).toEqual([
      'dev',
      'prod',
    ]);
    expect(index.pipelinesFor(helm('mgmt', 'default'))).toEqual(['default/podinfo-test']);
  });

  it('does not reference other names, kinds, namespaces or clusters', () => {
    expect(index.references(helm('mgmt', 'dev-github', 'other'))).toBe(false);
    expect(index.references({ ...helm('mgmt', 'dev-github'), kind: 'Kustomization' })).toBe(false);
    expect(index.references({ ...helm('mgmt', 'dev-github'), group: 'x.io' })).toBe(false);
    expect(index.references(helm('staging', 'dev-github'))).toBe(false);
    expect(index.pipelinesFor(helm('mgmt', 'nowhere'))).toEqual([]);
  });

  it('plans one LIST per referenced namespace', () => {
    expect(scopesOf(index).map((s) => s.namespace)).toEqual([
      'default',
      'dev-github',
      'dev-gitlab',
      'prod-github',
      'prod-gitlab',
    ]);
  });
});

describe('PipelineCatalog on a multi-cluster Pipeline', () => {
  const multi = pipeline('flux-system', 'shop', [
    { name: 'dev', targets: [{ namespace: 'shop-dev' }] },
    {
      name: 'staging',
      targets: [
        { namespace: 'shop', clusterRef: { kind: 'GitopsCluster', name: 'staging-cluster' } },
      ],
    },
    {
      name: 'prod',
      targets: [
        {
          namespace: 'shop',
          clusterRef: { kind: 'GitopsCluster', name: 'prod-eu', namespace: 'clusters' },
        },
        {
          namespace: 'shop',
          clusterRef: { kind: 'GitopsCluster', name: 'prod-us', namespace: 'clusters' },
        },
      ],
    },
  ]);

  it('resolves each target to its cluster name, in spec order', () => {
    const index = new PipelineCatalog(config);
    expect(index.upsert(structuredClone(multi))).toBe(true);
    expect(
      index
        .targetsOf(id('flux-system/shop'))
        .map((t) => [t.environment, t.index, t.location.cluster]),
    ).toEqual([
      ['dev', 0, 'mgmt'],
      ['staging', 0, 'staging'],
      ['prod', 0, 'prod-eu'],
      ['prod', 1, 'clusters/prod-us'],
    ]);
    for (const c of ['mgmt', 'staging', 'prod-eu', 'clusters/prod-us']) {
      const ns = c === 'mgmt' ? 'shop-dev' : 'shop';
      expect(index.pipelinesFor(helm(c, ns))).toEqual(['flux-system/shop']);
    }
    expect(index.referencedObjects).toBe(4);
    expect(scopesOf(index).map((s) => s.cluster)).toEqual([
      'clusters/prod-us',
      'mgmt',
      'prod-eu',
      'staging',
    ]);
  });

  it("gives each target its object's key, ref and place, and its location as its JSON", () => {
    const index = new PipelineCatalog(config);
    index.upsert(structuredClone(multi));
    const prodUs = index.targetsOf(id('flux-system/shop'))[3];
    const object = {
      cluster: 'clusters/prod-us',
      group: 'helm.toolkit.fluxcd.io',
      kind: 'HelmRelease',
      namespace: 'shop',
      name: multi.spec.appRef.name,
    };
    expect(plainKey(prodUs?.key ?? object)).toEqual(object);
    expect(prodUs?.id).toBe(objectKeyId(object));
    expect(prodUs?.ref).toMatchObject({
      apiVersion: multi.spec.appRef.apiVersion,
      kind: 'HelmRelease',
      namespace: 'shop',
    });
    expect([prodUs?.environment, prodUs?.index]).toEqual(['prod', 1]);
    // The target is its own location: as JSON, spread or compared, it is {cluster, namespace}.
    expect(prodUs?.location).toBe(prodUs);
    const location = { cluster: 'clusters/prod-us', namespace: 'shop' };
    expect(JSON.parse(JSON.stringify(prodUs))).toEqual(location);
    expect({ ...prodUs?.location }).toEqual(location);
    expect(Object.keys(prodUs ?? {})).toEqual(['cluster', 'namespace']);
  });
});

describe('PipelineCatalog updates', () => {
  const dev = { name: 'dev', targets: [{ namespace: 'dev' }] };
  const prod = { name: 'prod', targets: [{ namespace: 'prod' }] };

  it('reports a reference change only when the referenced objects change', () => {
    const index = new PipelineCatalog(config);
    expect(index.upsert(pipeline('ns', 'a', [dev, prod]))).toBe(true);
    const withStrategy = pipeline('ns', 'a', [dev, prod]);
    withStrategy.spec.promotion = { strategy: { notification: {} } };
    const expected = structuredClone(withStrategy);
    expect(index.upsert(withStrategy)).toBe(false);
    expect(index.get(pipelineId({ namespace: 'ns', name: 'a' }))).toEqual(expected);
    expect(
      index.upsert(pipeline('ns', 'a', [dev, { name: 'prod', targets: [{ namespace: 'live' }] }])),
    ).toBe(true);
    expect(index.references(helm('mgmt', 'prod'))).toBe(false);
    expect(index.references(helm('mgmt', 'live'))).toBe(true);
    // The same objects under a renamed environment are a change: targetsOf must follow it.
    expect(
      index.upsert(pipeline('ns', 'a', [dev, { name: 'live', targets: [{ namespace: 'live' }] }])),
    ).toBe(true);
    // A new appRef apiVersion changes which version is read.
    const v2 = { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'podinfo' };
    expect(
      index.upsert(
        pipeline('ns', 'a', [dev, { name: 'live', targets: [{ namespace: 'live' }] }], v2),
      ),
    ).toBe(true);
  });

  it('holds one instance of equal spec targets and clusterRefs across Pipelines', () => {
    const index = new PipelineCatalog(config);
    const eu = { kind: 'GitopsCluster' as const, name: 'prod-eu', namespace: 'clusters' };
    const specOf = (name: string) => index.get(pipelineId({ namespace: 'ns', name }))?.spec;
    index.upsert(
      pipeline('ns', 'a', [{ name: 'prod', targets: [{ namespace: 'web', clusterRef: eu }] }]),
    );
    index.upsert(
      pipeline('ns', 'b', [
        { name: 'live', targets: [{ namespace: 'web', clusterRef: { ...eu } }] },
      ]),
    );
    index.upsert(
      pipeline('ns', 'c', [
        { name: 'prod', targets: [{ namespace: 'api', clusterRef: { ...eu } }] },
      ]),
    );
    const [a, b, c] = ['a', 'b', 'c'].map((name) => specOf(name)?.environments[0]?.targets[0]);
    expect(a).toStrictEqual({ namespace: 'web', clusterRef: eu });
    expect(b).toBe(a);
    expect(c).toStrictEqual({ namespace: 'api', clusterRef: eu });
    expect(c?.clusterRef).toBe(a?.clusterRef);
    expect(Object.isFrozen(a) && Object.isFrozen(a?.clusterRef)).toBe(true);
  });

  it("drops the API server's managedFields and kubectl's last-applied copy, and keeps the rest", () => {
    const index = new PipelineCatalog(config);
    const applied = pipeline('ns', 'a', [dev, prod]);
    const lastApplied = JSON.stringify(applied);
    applied.metadata.managedFields = [{ manager: 'kubectl', operation: 'Update' }];
    applied.metadata.annotations = {
      'kubectl.kubernetes.io/last-applied-configuration': lastApplied,
      team: 'payments',
    };
    applied.metadata.labels = { app: 'podinfo' };
    index.upsert(applied);
    const held = index.get(pipelineId({ namespace: 'ns', name: 'a' }));
    expect(held?.metadata).not.toHaveProperty('managedFields');
    expect(held?.metadata.annotations).toStrictEqual({ team: 'payments' });
    expect(held?.metadata.labels).toStrictEqual({ app: 'podinfo' });
    expect(held?.spec).toStrictEqual(pipeline('ns', 'a', [dev, prod]).spec);

    const onlyApplied = pipeline('ns', 'b', [dev]);
    onlyApplied.metadata.annotations = {
      'kubectl.kubernetes.io/last-applied-configuration': lastApplied,
    };
    index.upsert(onlyApplied);
    expect(index.get(pipelineId({ namespace: 'ns', name: 'b' }))?.metadata).not.toHaveProperty(
      'annotations',
    );
  });

  it('removes a Pipeline and every reverse entry it alone held', () => {
    const index = new PipelineCatalog(config);
    index.upsert(pipeline('ns', 'a', [dev, prod]));
    index.upsert(pipeline('ns', 'b', [dev]));
    expect(index.remove(pipelineId({ namespace: 'ns', name: 'a' }))).toBe(true);
    expect(index.remove(pipelineId({ namespace: 'ns', name: 'a' }))).toBe(false);
    expect(index.has(pipelineId({ namespace: 'ns', name: 'a' }))).toBe(false);
    expect(index.targetsOf(id('ns/a'))).toEqual([]);
    expect(index.pipelinesFor(helm('mgmt', 'dev'))).toEqual(['ns/b']);
    expect(index.references(helm('mgmt', 'prod'))).toBe(false);
    expect(index.referencedObjects).toBe(1);
    expect(index.all().map((p) => p.metadata.name)).toEqual(['b']);
  });

  it('follows an object from one referring Pipeline to three and back to none', () => {
    const index = new PipelineCatalog(config);
    const names = ['c', 'a', 'b'];
    for (const name of names) index.upsert(pipeline('ns', name, [dev]));
    expect(index.pipelinesFor(helm('mgmt', 'dev'))).toEqual(['ns/a', 'ns/b', 'ns/c']);
    // Re-upserting the same references changes nothing, from the shared entry's point of view.
    expect(index.upsert(pipeline('ns', 'a', [dev]))).toBe(false);
    expect(index.pipelinesFor(helm('mgmt', 'dev'))).toEqual(['ns/a', 'ns/b', 'ns/c']);
    index.remove(id('ns/a'));
    index.remove(id('ns/c'));
    expect(index.pipelinesFor(helm('mgmt', 'dev'))).toEqual(['ns/b']);
    // Moving the last referrer away, then back, then removing it leaves nothing behind.
    index.upsert(pipeline('ns', 'b', [prod]));
    expect(index.references(helm('mgmt', 'dev'))).toBe(false);
    index.upsert(pipeline('ns', 'b', [dev]));
    expect(index.pipelinesFor(helm('mgmt', 'dev'))).toEqual(['ns/b']);
    index.upsert(pipeline('ns', 'd', [dev]));
    expect(index.pipelinesFor(helm('mgmt', 'dev'))).toEqual(['ns/b', 'ns/d']);
    index.remove(id('ns/b'));
    index.remove(id('ns/d'));
    expect(index.referencedObjects).toBe(0);
  });

  it('shares one LIST among Pipelines and prefers the newest apiVersion', () => {
    const index = new PipelineCatalog(config);
    index.upsert(
      pipeline('ns', 'a', [dev], {
        apiVersion: 'helm.toolkit.fluxcd.io/v2beta1',
        kind: 'HelmRelease',
        name: 'one',
      }),
    );
    index.upsert(
      pipeline('ns', 'b', [dev], {
        apiVersion: 'helm.toolkit.fluxcd.io/v2',
        kind: 'HelmRelease',
        name: 'two',
      }),
    );
    index.upsert(
      pipeline('ns', 'c', [dev], {
        apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
        kind: 'Kustomization',
        name: 'three',
      }),
    );
    expect(scopesOf(index)).toEqual([
      {
        cluster: 'mgmt',
        group: 'helm.toolkit.fluxcd.io',
        kind: 'HelmRelease',
        namespace: 'dev',
        apiVersion: 'helm.toolkit.fluxcd.io/v2',
        apiVersions: ['helm.toolkit.fluxcd.io/v2', 'helm.toolkit.fluxcd.io/v2beta1'],
      },
      {
        cluster: 'mgmt',
        group: 'kustomize.toolkit.fluxcd.io',
        kind: 'Kustomization',
        namespace: 'dev',
        apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
        apiVersions: ['kustomize.toolkit.fluxcd.io/v1'],
      },
    ]);
    // Each Pipeline still reads with its own appRef apiVersion.
    expect(index.targetsOf(id('ns/a'))[0]?.ref.apiVersion).toBe('helm.toolkit.fluxcd.io/v2beta1');
  });

  it('keeps the targets at the same generation and derives them anew when it moves', () => {
    const index = new PipelineCatalog(config);
    const at = (generation: number, envs: PipelineEnvironment[]) => {
      const p = pipeline('ns', 'a', envs);
      p.metadata.generation = generation;
      return p;
    };
    index.upsert(at(1, [dev, prod]));
    const before = index.targetsOf(id('ns/a'));
    // The API server moves the generation on every spec change, so an update at the same one
    // is taken as status-only and its spec is not walked again (here it even differs).
    const statusWrite = at(1, [dev]);
    statusWrite.status = { observedGeneration: 1 };
    expect(index.upsert(statusWrite)).toBe(false);
    expect(index.targetsOf(id('ns/a'))).toBe(before);
    expect(index.references(helm('mgmt', 'prod'))).toBe(true);
    // The spec held is the one the targets come from.
    expect(index.get(id('ns/a'))?.spec.environments.map((e) => e.name)).toEqual(['dev', 'prod']);
    expect(index.get(id('ns/a'))?.status).toEqual({ observedGeneration: 1 });
    // A spec change moves the generation: its targets are derived and indexed again.
    expect(index.upsert(at(2, [dev, { name: 'prod', targets: [{ namespace: 'live' }] }]))).toBe(
      true,
    );
    expect(index.references(helm('mgmt', 'live'))).toBe(true);
    expect(index.references(helm('mgmt', 'prod'))).toBe(false);
  });

  it('gives each target its environment and its index within it', () => {
    const index = new PipelineCatalog(config);
    const many = { name: 'prod', targets: [{ namespace: 'p0' }, { namespace: 'p1' }] };
    index.upsert(pipeline('ns', 'a', [dev, many]));
    index.upsert(pipeline('ns', 'b', [dev, many], { ...podinfo, name: 'other' }));
    const places = index
      .targetsOf(id('ns/b'))
      .map((t): unknown[] => [t.environment, t.index, t.location.namespace]);
    expect(places).toEqual([
      ['dev', 0, 'dev'],
      ['prod', 0, 'p0'],
      ['prod', 1, 'p1'],
    ]);
    const [aDev] = index.targetsOf(id('ns/a'));
    expect(aDev?.location).toEqual({ cluster: 'mgmt', namespace: 'dev' });
    expect(Object.isFrozen(aDev?.location)).toBe(true);
  });

  it('keeps the place of a target far down a long environment', () => {
    const index = new PipelineCatalog(config);
    const wide = {
      name: 'prod',
      targets: Array.from({ length: 3000 }, (_, i) => ({ namespace: `p${String(i)}` })),
    };
    index.upsert(
      pipeline('ns', 'wide', [dev, wide, { name: 'last', targets: [{ namespace: 'l' }] }]),
    );
    const targets = index.targetsOf(id('ns/wide'));
    expect(targets).toHaveLength(3002);
    const places = [targets[1], targets[3000], targets[3001]].map((t) => [
      t?.environment,
      t?.index,
    ]);
    expect(places).toEqual([
      ['prod', 0],
      ['prod', 2999],
      ['last', 0],
    ]);
  });

  it('hands out targets that callers cannot mutate', () => {
    const index = new PipelineCatalog(config);
    index.upsert(pipeline('ns', 'a', [dev]));
    const [target] = index.targetsOf(id('ns/a'));
    expect(Object.isFrozen(target)).toBe(true);
    expect(Object.isFrozen(target?.key)).toBe(true);
  });
});
