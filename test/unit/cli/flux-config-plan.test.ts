/**
 * flux-config's plan, from Pipelines alone: each target cluster named as the gateway names it
 * (configured names first, proposals for unmapped GitopsClusters that never collide), and per
 * cluster exactly the (kind, namespace) pairs the Pipelines reference, sorted whatever the input
 * order.
 */
import { describe, expect, it } from 'vitest';
import type { ClusterNamingConfig } from '../../../src/catalog/cluster-names.js';
import {
  configuredNames,
  NamingError,
  planClusters,
  withProposedNames,
} from '../../../src/cli/flux-config-plan.js';
import type { Pipeline, PipelineTarget } from '../../../src/pipeline/pipeline-resource.js';

const HR = { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease' };
const KS = { apiVersion: 'kustomize.toolkit.fluxcd.io/v1', kind: 'Kustomization' };

function on(cluster: string | undefined, namespace: string, refNamespace?: string): PipelineTarget {
  if (cluster === undefined) return { namespace };
  return {
    namespace,
    clusterRef: {
      kind: 'GitopsCluster',
      name: cluster,
      ...(refNamespace === undefined ? {} : { namespace: refNamespace }),
    },
  };
}

function pipeline(
  id: string,
  app: { apiVersion: string; kind: string },
  ...targets: PipelineTarget[]
): Pipeline {
  const [namespace = '', name = ''] = id.split('/');
  return {
    apiVersion: 'pipelines.weave.works/v1alpha1',
    kind: 'Pipeline',
    metadata: { namespace, name },
    spec: {
      appRef: { ...app, name },
      environments: targets.map((target, i) => ({ name: `env${String(i)}`, targets: [target] })),
    },
  };
}

const NO_CONFIG: ClusterNamingConfig = { management: { name: 'management' }, clusters: [] };

function plan(pipelines: Pipeline[], config = NO_CONFIG) {
  return planClusters(pipelines, withProposedNames(pipelines, config), configuredNames(config));
}

describe('flux-config plan', () => {
  it('lists every (kind, namespace) per cluster, the management cluster included', () => {
    const result = plan([
      pipeline('team-a/podinfo', HR, on('dev', 'team-a', 'fleet'), on('prod', 'team-a', 'fleet')),
      pipeline('team-b/web', HR, on('dev', 'web-dev', 'fleet'), on('prod', 'web', 'fleet')),
      pipeline('team-b/infra', KS, on('dev', 'web-dev', 'fleet'), on(undefined, 'infra')),
    ]);
    expect(result.skipped).toEqual([]);
    expect(result.clusters).toEqual([
      {
        name: 'dev',
        gitopsCluster: { namespace: 'fleet', name: 'dev' },
        configured: false,
        sources: [
          { kind: 'HelmRelease', namespace: 'team-a' },
          { kind: 'HelmRelease', namespace: 'web-dev' },
          { kind: 'Kustomization', namespace: 'web-dev' },
        ],
      },
      {
        name: 'management',
        configured: false,
        sources: [{ kind: 'Kustomization', namespace: 'infra' }],
      },
      {
        name: 'prod',
        gitopsCluster: { namespace: 'fleet', name: 'prod' },
        configured: false,
        sources: [
          { kind: 'HelmRelease', namespace: 'team-a' },
          { kind: 'HelmRelease', namespace: 'web' },
        ],
      },
    ]);
  });

  it('takes a clusterRef without namespace from the Pipeline namespace, as pipeline-controller does', () => {
    const result = plan([pipeline('apps/podinfo', HR, on('dev', 'apps'))]);
    expect(result.clusters[0]).toMatchObject({
      name: 'dev',
      gitopsCluster: { namespace: 'apps', name: 'dev' },
    });
  });

  it('uses the configured names and marks the clusters the configuration has', () => {
    const config: ClusterNamingConfig = {
      management: { name: 'hub' },
      clusters: [
        {
          name: 'dev-eu',
          gitopsCluster: { namespace: 'fleet', name: 'dev' },
          hmacKeys: [],
          jwtSubjects: [],
        },
      ],
    };
    const result = plan(
      [
        pipeline(
          'a/app',
          HR,
          on('dev', 'a', 'fleet'),
          on('prod', 'a', 'fleet'),
          on(undefined, 'a'),
        ),
      ],
      config,
    );
    expect(result.clusters.map((c) => [c.name, c.configured])).toEqual([
      ['dev-eu', true],
      ['hub', false],
      ['prod', false],
    ]);
  });

  it('never proposes a name twice: shared GitopsCluster names get their namespace', () => {
    const config: ClusterNamingConfig = {
      management: { name: 'management' },
      clusters: [
        {
          name: 'prod',
          gitopsCluster: { namespace: 'x', name: 'y' },
          hmacKeys: [],
          jwtSubjects: [],
        },
      ],
    };
    const result = plan(
      [
        pipeline('a/app', HR, on('dev', 'a', 'eu'), on('dev', 'a', 'us'), on('prod', 'a', 'eu')),
        pipeline('b/app', HR, on('management', 'b', 'fleet')),
      ],
      config,
    );
    expect(result.clusters.map((c) => [c.name, c.gitopsCluster])).toEqual([
      ['eu-dev', { namespace: 'eu', name: 'dev' }],
      ['eu-prod', { namespace: 'eu', name: 'prod' }],
      ['fleet-management', { namespace: 'fleet', name: 'management' }],
      ['us-dev', { namespace: 'us', name: 'dev' }],
    ]);
  });

  it('refuses a GitopsCluster it cannot name as a DNS label', () => {
    const long = 'n'.repeat(40);
    const pipelines = [pipeline('a/app', HR, on(`${long}.x`, 'a', long))];
    expect(() => withProposedNames(pipelines, NO_CONFIG)).toThrow(NamingError);
    expect(() => withProposedNames(pipelines, NO_CONFIG)).toThrow(
      `cannot name GitopsCluster ${long}/${long}.x`,
    );
  });

  it('skips a Pipeline whose appRef is not a kind (and group) the gateway verifies', () => {
    const result = plan([
      pipeline('a/app', { apiVersion: 'apps/v1', kind: 'Deployment' }, on('dev', 'a', 'f')),
      pipeline('b/app', { apiVersion: 'example.com/v1', kind: 'HelmRelease' }, on('dev', 'b', 'f')),
      pipeline('c/app', HR, on('dev', 'c', 'f')),
    ]);
    expect(result.skipped).toEqual([
      'Pipeline a/app: appRef apps/v1 Deployment is not a kind the gateway verifies',
      'Pipeline b/app: appRef example.com/v1 HelmRelease is not a kind the gateway verifies',
    ]);
    expect(result.clusters.map((c) => c.sources)).toEqual([
      [{ kind: 'HelmRelease', namespace: 'c' }],
    ]);
  });

  it('gives the same plan whatever order the Pipelines and targets arrive in', () => {
    const pipelines = [
      pipeline('z/one', HR, on('b', 'z2', 'f'), on('a', 'z1', 'f')),
      pipeline('a/two', KS, on('a', 'a1', 'f'), on('b', 'z2', 'f')),
      pipeline('m/three', HR, on('a', 'a1', 'f'), on(undefined, 'm')),
    ];
    const expected = JSON.stringify(plan(pipelines));
    for (const order of [
      [2, 0, 1],
      [1, 2, 0],
      [2, 1, 0],
    ]) {
      expect(JSON.stringify(plan(order.map((i) => pipelines[i]!)))).toBe(expected);
    }
  });
});
