import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../src/config/load.js';
import { PipelineCatalog } from '../../../src/catalog/catalog.js';
import { wantedClusters } from '../../../src/catalog/wanted-clusters.js';
import type { Pipeline } from '../../../src/pipeline/pipeline-resource.js';

const config = defaultConfig({
  clusters: [
    {
      name: 'dev',
      gitopsCluster: { namespace: 'flux-system', name: 'dev' },
      hmacKeys: [{ value: 'k' }],
    },
  ],
});

function pipeline(targets: Pipeline['spec']['environments'][number]['targets'][]): Pipeline {
  return {
    apiVersion: 'pipelines.weave.works/v1alpha1',
    kind: 'Pipeline',
    metadata: { name: 'app', namespace: 'team' },
    spec: {
      appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'app' },
      environments: targets.map((t, i) => ({ name: `env${i}`, targets: t })),
    },
  };
}

describe('wantedClusters', () => {
  it('lists configured clusters and the GitopsClusters pipelines reference, once each', () => {
    const index = new PipelineCatalog(config);
    index.upsert(
      pipeline([
        [{ namespace: 'app' }],
        [
          {
            namespace: 'app',
            clusterRef: { kind: 'GitopsCluster', name: 'dev', namespace: 'flux-system' },
          },
        ],
        [
          { namespace: 'app', clusterRef: { kind: 'GitopsCluster', name: 'edge' } },
          { namespace: 'app2', clusterRef: { kind: 'GitopsCluster', name: 'edge' } },
        ],
      ]),
    );
    expect(wantedClusters(config, index)).toEqual([
      { name: 'dev', gitopsCluster: { namespace: 'flux-system', name: 'dev' } },
      // Unmapped: named namespace/name, the clusterRef namespace defaulting to the Pipeline's.
      { name: 'team/edge', gitopsCluster: { namespace: 'team', name: 'edge' } },
    ]);
  });
});
