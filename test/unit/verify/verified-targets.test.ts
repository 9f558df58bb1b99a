/**
 * How a pass reads: one LIST per namespace where a cluster holds few, one paged cluster-wide
 * LIST where it holds many (one namespace per application), and per namespace again, for good,
 * on a cluster whose RBAC refuses the cluster-wide LIST. Every target is stored either way.
 */
import { describe, expect, it } from 'vitest';
import { PipelineCatalog } from '../../../src/catalog/catalog.js';
import { defaultConfig } from '../../../src/config/load.js';
import type { Pipeline } from '../../../src/pipeline/pipeline-resource.js';
import { CLUSTER_WIDE_ABOVE } from '../../../src/verify/scope-plan.js';
import { RELIST_FROM, VerifiedTargets } from '../../../src/verify/verified-targets.js';
import { Verifier } from '../../../src/verify/verifier.js';
import { FakeClusters } from '../../support/fake-clusters.js';

/** A Pipeline `app` with one environment whose target is `app`'s namespace in cluster eu. */
function pipeline(app: string): Pipeline {
  return {
    apiVersion: 'pipelines.weave.works/v1alpha1',
    kind: 'Pipeline',
    metadata: { name: app, namespace: 'apps' },
    spec: {
      appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: app },
      environments: [
        {
          name: 'prod',
          targets: [{ namespace: app, clusterRef: { kind: 'GitopsCluster', name: 'eu' } }],
        },
      ],
    },
  };
}

/** `apps` applications, each in a namespace of its own in cluster eu (all released). */
function setup(apps: number) {
  const config = defaultConfig({
    management: { name: 'mgmt' },
    clusters: [{ name: 'eu', gitopsCluster: { namespace: 'apps', name: 'eu' } }],
  });
  const catalog = new PipelineCatalog(config);
  const clusters = new FakeClusters();
  const eu = clusters.cluster('eu');
  const names = Array.from({ length: apps }, (_, i) => `app-${String(i)}`);
  for (const name of names) {
    eu.release(name, name, '1.0.0');
    // An object no Pipeline references, in the same namespace: listed, never stored.
    eu.release(name, `${name}-other`, '1.0.0');
    catalog.upsert(pipeline(name));
  }
  const clock = { now: 0 };
  const verified = new VerifiedTargets(new Verifier(clusters), () => clock.now);
  return { catalog, eu, verified, clock };
}

function healthyCount(s: ReturnType<typeof setup>): number {
  return s.catalog
    .ids()
    .flatMap((id) => s.catalog.targetsOf(id))
    .filter((t) => s.verified.get(t.key)?.status.health === 'Healthy').length;
}

describe('VerifiedTargets.readScopes', () => {
  it('lists per namespace while a cluster holds few namespaces', async () => {
    const s = setup(CLUSTER_WIDE_ABOVE);
    expect(await s.verified.readScopes(s.catalog.allTargets())).toEqual({
      scopes: CLUSTER_WIDE_ABOVE,
      unknown: 0,
    });
    expect(s.eu.listedNamespaces.sort()).toEqual(
      Array.from({ length: CLUSTER_WIDE_ABOVE }, (_, i) => `app-${String(i)}`).sort(),
    );
    expect(s.verified.size).toBe(CLUSTER_WIDE_ABOVE);
    expect(healthyCount(s)).toBe(CLUSTER_WIDE_ABOVE);
  });

  it('lists the whole cluster once, in pages, when it holds many namespaces', async () => {
    const s = setup(CLUSTER_WIDE_ABOVE * 5);
    expect(await s.verified.readScopes(s.catalog.allTargets())).toEqual({ scopes: 1, unknown: 0 });
    expect(s.eu.listedNamespaces).toEqual(['*']);
    expect(s.verified.size).toBe(CLUSTER_WIDE_ABOVE * 5);
    for (const id of s.catalog.ids())
      for (const t of s.catalog.targetsOf(id))
        expect(s.verified.get(t.key)?.status).toMatchObject({
          health: 'Healthy',
          revision: '1.0.0',
        });
  });

  it('falls back to per-namespace LISTs for good where RBAC refuses the cluster-wide one', async () => {
    const s = setup(CLUSTER_WIDE_ABOVE + 2);
    s.eu.clusterWideForbidden = true;
    // The refused cluster-wide LIST, then one per namespace.
    expect(await s.verified.readScopes(s.catalog.allTargets())).toEqual({
      scopes: 1 + CLUSTER_WIDE_ABOVE + 2,
      unknown: 0,
    });
    expect(s.eu.listedNamespaces[0]).toBe('*');
    expect(s.eu.listedNamespaces.slice(1)).toHaveLength(CLUSTER_WIDE_ABOVE + 2);
    expect(s.verified.size).toBe(CLUSTER_WIDE_ABOVE + 2);

    s.eu.listedNamespaces.length = 0;
    await s.verified.readScopes(s.catalog.allTargets());
    expect(s.eu.listedNamespaces).not.toContain('*');
    expect(s.eu.listedNamespaces).toHaveLength(CLUSTER_WIDE_ABOVE + 2);
  });

  it('stores a target missing from the listing as NotFound, and a failed LIST as Unknown', async () => {
    const s = setup(CLUSTER_WIDE_ABOVE * 2);
    const [id] = s.catalog.ids();
    if (id === undefined) throw new Error('no pipeline');
    const [target] = s.catalog.targetsOf(id);
    if (target === undefined) throw new Error('no target');
    s.eu.remove(target.key.namespace, target.key.name);
    expect((await s.verified.readScopes(s.catalog.allTargets())).unknown).toBe(1);
    expect(s.verified.get(target.key)?.status).toMatchObject({
      health: 'Unknown',
      reason: 'NotFound',
    });
    s.eu.failure = 'Unavailable';
    expect((await s.verified.readScopes(s.catalog.allTargets())).unknown).toBe(
      CLUSTER_WIDE_ABOVE * 2,
    );
  });

  it('confirms targets of a listed scope with one shared re-LIST, not a GET each', async () => {
    const s = setup(CLUSTER_WIDE_ABOVE * 2);
    await s.verified.readScopes(s.catalog.allTargets());
    const targets = s.catalog.ids().flatMap((id) => s.catalog.targetsOf(id));
    s.eu.lists = 0;
    s.clock.now = 60_000;
    // Five confirmations at once, as a promotion wave makes them: one LIST serves them all.
    await Promise.all(targets.slice(0, 5).map((t) => s.verified.reread([t])));
    expect(s.eu.lists).toBe(1);
    expect(s.eu.gets).toBe(0);
    for (const t of targets) expect(s.verified.get(t.key)?.readAt).toBe(60_000);
  });

  it('confirms targets of a small scope by GET', async () => {
    const s = setup(RELIST_FROM - 1);
    await s.verified.readScopes(s.catalog.allTargets());
    const [target] = s.catalog.ids().flatMap((id) => s.catalog.targetsOf(id));
    if (target === undefined) throw new Error('no target');
    s.eu.lists = 0;
    await s.verified.reread([target]);
    expect(s.eu.lists).toBe(0);
    expect(s.eu.gets).toBe(1);
  });

  it('keeps the stored status while a target reads the same, by LIST or by GET', async () => {
    const s = setup(CLUSTER_WIDE_ABOVE * 2);
    await s.verified.readScopes(s.catalog.allTargets());
    const [first, second] = s.catalog.ids().flatMap((id) => s.catalog.targetsOf(id));
    if (first === undefined || second === undefined) throw new Error('no targets');
    const before = s.verified.get(first.key)?.status;
    s.clock.now = 5_000;
    s.eu.release(second.key.namespace, second.key.name, '2.0.0');
    await s.verified.readScopes(s.catalog.allTargets());
    await s.verified.read(first);
    expect(s.verified.get(first.key)?.readAt).toBe(5_000);
    expect(s.verified.get(first.key)?.status).toEqual(before);
    // A changed object gets the status it now has.
    expect(s.verified.get(second.key)?.status.revision).toBe('2.0.0');
    s.eu.release(first.key.namespace, first.key.name, '2.0.0');
    await s.verified.read(first);
    expect(s.verified.get(first.key)?.status).not.toEqual(before);
    expect(s.verified.get(first.key)?.status.revision).toBe('2.0.0');
  });
});
