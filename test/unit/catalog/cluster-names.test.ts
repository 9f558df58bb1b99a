import { describe, expect, it } from 'vitest';
import type { ClusterConfig } from '../../../src/config/gateway-config.js';
import {
  clusterNameFor,
  configuredGitopsClusters,
  configuredNameOf,
  gitopsClusterRefFor,
  gitopsClusterRefOf,
  isUnmappedClusterName,
  parseUnmappedClusterName,
  unmappedClusterName,
} from '../../../src/catalog/cluster-names.js';

function cluster(name: string, gitopsCluster?: { namespace: string; name: string }): ClusterConfig {
  return { name, gitopsCluster, hmacKeys: [], jwtSubjects: [] };
}

const config = {
  management: { name: 'mgmt' },
  clusters: [
    cluster('mgmt'),
    cluster('staging', { namespace: 'flux-system', name: 'staging-cluster' }),
    cluster('prod-eu', { namespace: 'clusters', name: 'prod-eu' }),
  ],
};

describe('clusterNameFor', () => {
  it('names a target without clusterRef after the management cluster', () => {
    expect(clusterNameFor({ namespace: 'dev' }, 'flux-system', config)).toBe('mgmt');
  });

  it('maps a clusterRef to the configured cluster whose gitopsCluster matches', () => {
    const target = {
      namespace: 'apps',
      clusterRef: { kind: 'GitopsCluster' as const, name: 'prod-eu', namespace: 'clusters' },
    };
    expect(clusterNameFor(target, 'flux-system', config)).toBe('prod-eu');
  });

  it("defaults the clusterRef namespace to the Pipeline's namespace", () => {
    const target = {
      namespace: 'apps',
      clusterRef: { kind: 'GitopsCluster' as const, name: 'staging-cluster' },
    };
    expect(clusterNameFor(target, 'flux-system', config)).toBe('staging');
    // The same ref from a Pipeline in another namespace is a different GitopsCluster.
    expect(clusterNameFor(target, 'team-a', config)).toBe('team-a/staging-cluster');
  });

  it('treats an empty clusterRef namespace like an absent one', () => {
    const target = {
      namespace: 'apps',
      clusterRef: { kind: 'GitopsCluster' as const, name: 'staging-cluster', namespace: '' },
    };
    expect(clusterNameFor(target, 'flux-system', config)).toBe('staging');
  });

  it('gives an unmapped GitopsCluster a canonical namespace/name that no DNS label can equal', () => {
    const target = {
      namespace: 'apps',
      clusterRef: { kind: 'GitopsCluster' as const, name: 'prod-us', namespace: 'clusters' },
    };
    const name = clusterNameFor(target, 'flux-system', config);
    expect(name).toBe('clusters/prod-us');
    expect(isUnmappedClusterName(name)).toBe(true);
    expect(config.clusters.some((c) => c.name === name)).toBe(false);
  });
});

describe('inverse lookups', () => {
  it('finds the GitopsCluster behind configured and unmapped names', () => {
    expect(gitopsClusterRefFor('staging', config)).toEqual({
      namespace: 'flux-system',
      name: 'staging-cluster',
    });
    expect(gitopsClusterRefFor('clusters/prod-us', config)).toEqual({
      namespace: 'clusters',
      name: 'prod-us',
    });
    expect(gitopsClusterRefFor('mgmt', config)).toBeUndefined();
    expect(gitopsClusterRefFor('nonsense', config)).toBeUndefined();
  });

  it('round-trips every clusterRef through clusterNameFor and gitopsClusterRefFor', () => {
    for (const ref of [
      { namespace: 'flux-system', name: 'staging-cluster' },
      { namespace: 'clusters', name: 'prod-eu' },
      { namespace: 'x', name: 'unmapped' },
    ]) {
      const target = { namespace: 'a', clusterRef: { kind: 'GitopsCluster' as const, ...ref } };
      expect(gitopsClusterRefFor(clusterNameFor(target, 'p', config), config)).toEqual(ref);
    }
  });

  it('lists configured remote clusters with their GitopsCluster refs', () => {
    expect([...configuredGitopsClusters(config)]).toEqual([
      ['staging', { namespace: 'flux-system', name: 'staging-cluster' }],
      ['prod-eu', { namespace: 'clusters', name: 'prod-eu' }],
    ]);
    expect(configuredNameOf({ namespace: 'clusters', name: 'prod-eu' }, config)).toBe('prod-eu');
    expect(configuredNameOf({ namespace: 'clusters', name: 'nope' }, config)).toBeUndefined();
  });

  it('parses only well-formed unmapped names', () => {
    expect(unmappedClusterName({ namespace: 'a', name: 'b' })).toBe('a/b');
    expect(parseUnmappedClusterName('a/b')).toEqual({ namespace: 'a', name: 'b' });
    for (const bad of ['ab', '/b', 'a/', 'a/b/c', '']) {
      expect(parseUnmappedClusterName(bad)).toBeUndefined();
    }
  });

  it('returns the raw clusterRef with the defaulted namespace', () => {
    expect(gitopsClusterRefOf({ namespace: 'a' }, 'p')).toBeUndefined();
    expect(
      gitopsClusterRefOf({ namespace: 'a', clusterRef: { kind: 'GitopsCluster', name: 'c' } }, 'p'),
    ).toEqual({ namespace: 'p', name: 'c' });
  });
});
