import type { GatewayConfig } from '../config/types.js';
import type { WantedCluster } from '../kube/clusters.js';
import { clusterNameFor } from './cluster-names.js';
import type { PipelineIndex } from './pipeline-index.js';

/** Every cluster the gateway must reach: configured ones plus any a Pipeline references. */
export function wantedClusters(config: GatewayConfig, index: PipelineIndex): WantedCluster[] {
  const wanted = new Map<string, WantedCluster>();
  for (const c of config.clusters)
    wanted.set(c.name, { name: c.name, gitopsCluster: c.gitopsCluster });
  for (const pipeline of index.all()) {
    for (const env of pipeline.spec.environments) {
      for (const target of env.targets) {
        const name = clusterNameFor(target, pipeline.metadata.namespace, config);
        if (wanted.has(name) || target.clusterRef === undefined) continue;
        wanted.set(name, {
          name,
          gitopsCluster: {
            namespace: target.clusterRef.namespace ?? pipeline.metadata.namespace,
            name: target.clusterRef.name,
          },
        });
      }
    }
  }
  return [...wanted.values()];
}
