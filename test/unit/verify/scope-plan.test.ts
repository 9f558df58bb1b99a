/**
 * planScopes: the LISTs a pass makes for the catalog's targets. Each object once, a scope per
 * namespace while a cluster holds few, one cluster-wide scope per kind where it holds many
 * (unless the cluster refused that), each scope with every apiVersion its targets use.
 */
import { describe, expect, it } from 'vitest';
import { PipelineCatalog } from '../../../src/catalog/catalog.js';
import { defaultConfig } from '../../../src/config/load.js';
import type { Pipeline } from '../../../src/pipeline/pipeline-resource.js';
import { ALL_NAMESPACES, CLUSTER_WIDE_ABOVE, planScopes } from '../../../src/verify/scope-plan.js';

const HELM = 'helm.toolkit.fluxcd.io';

/** Pipeline `name`: its HelmRelease (at `apiVersion`) in `namespaces` of cluster eu, one each. */
function pipeline(name: string, namespaces: string[], apiVersion = `${HELM}/v2`): Pipeline {
  return {
    apiVersion: 'pipelines.weave.works/v1alpha1',
    kind: 'Pipeline',
    metadata: { name, namespace: 'apps' },
    spec: {
      appRef: { apiVersion, kind: 'HelmRelease', name: 'app' },
      environments: namespaces.map((namespace) => ({
        name: namespace,
        targets: [{ namespace, clusterRef: { kind: 'GitopsCluster', name: 'eu' } }],
      })),
    },
  };
}

function catalogOf(...pipelines: Pipeline[]): PipelineCatalog {
  const catalog = new PipelineCatalog(
    defaultConfig({
      management: { name: 'mgmt' },
      clusters: [{ name: 'eu', gitopsCluster: { namespace: 'apps', name: 'eu' } }],
    }),
  );
  for (const p of pipelines) catalog.upsert(p);
  return catalog;
}

const namespaces = (n: number) => Array.from({ length: n }, (_, i) => `ns-${String(i)}`);

describe('planScopes', () => {
  it('plans a LIST per namespace while a cluster holds few, each object once', () => {
    // Two Pipelines name the same objects: one target each in the plan.
    const catalog = catalogOf(pipeline('a', ['dev', 'prod']), pipeline('b', ['dev', 'prod']));
    const plan = planScopes(catalog.allTargets(), () => false);
    expect([...plan.keys()].map((s) => [s.cluster, s.namespace, s.kind])).toEqual([
      ['eu', 'dev', 'HelmRelease'],
      ['eu', 'prod', 'HelmRelease'],
    ]);
    expect([...plan.values()].map((targets) => targets.length)).toEqual([1, 1]);
  });

  it('plans one cluster-wide LIST with every target where a cluster holds many namespaces', () => {
    const many = namespaces(CLUSTER_WIDE_ABOVE + 1);
    const catalog = catalogOf(pipeline('a', many));
    const plan = planScopes(catalog.allTargets(), () => false);
    expect([...plan.keys()]).toEqual([
      {
        cluster: 'eu',
        group: HELM,
        kind: 'HelmRelease',
        namespace: ALL_NAMESPACES,
        apiVersion: `${HELM}/v2`,
        apiVersions: [`${HELM}/v2`],
      },
    ]);
    expect([...plan.values()][0]?.map((t) => t.key.namespace).sort()).toEqual(many.sort());
  });

  it('keeps a scope per namespace at the threshold, and on a cluster that refused', () => {
    const atThreshold = catalogOf(pipeline('a', namespaces(CLUSTER_WIDE_ABOVE)));
    expect(planScopes(atThreshold.allTargets(), () => false).size).toBe(CLUSTER_WIDE_ABOVE);
    const many = catalogOf(pipeline('a', namespaces(CLUSTER_WIDE_ABOVE * 2)));
    const refused = planScopes(many.allTargets(), (cluster) => cluster === 'eu');
    expect(refused.size).toBe(CLUSTER_WIDE_ABOVE * 2);
    expect([...refused.keys()].some((s) => s.namespace === ALL_NAMESPACES)).toBe(false);
  });

  it('lists every apiVersion the scope is named with, the most preferred first', () => {
    const catalog = catalogOf(
      pipeline('old', ['dev'], `${HELM}/v2beta1`),
      pipeline('new', ['dev'], `${HELM}/v2`),
    );
    const [scope] = planScopes(catalog.allTargets(), () => false).keys();
    expect(scope).toMatchObject({
      apiVersion: `${HELM}/v2`,
      apiVersions: [`${HELM}/v2`, `${HELM}/v2beta1`],
    });
  });
});
