import type { GatewayConfig } from '../config/gateway-config.js';
import type { WantedCluster } from '../kube/clusters.js';
import type { PipelineCatalog } from './catalog.js';
import { clusterNameFor, gitopsClusterRefOf } from './cluster-names.js';

/** Every cluster the gateway must reach: configured ones plus any a Pipeline references. */
export function wantedClusters(config: GatewayConfig, catalog: PipelineCatalog): WantedCluster[] {
  const wanted = new Map<string, WantedCluster>();
  for (const c of config.clusters)
    wanted.set(c.name, { name: c.name, gitopsCluster: c.gitopsCluster });
  for (const pipeline of catalog.all()) {
    const { namespace } = pipeline.metadata;
    for (const env of pipeline.spec.environments) {
      for (const target of env.targets) {
        const name = clusterNameFor(target, namespace, config);
        const gitopsCluster = gitopsClusterRefOf(target, namespace);
        if (wanted.has(name) || gitopsCluster === undefined) continue;
        wanted.set(name, { name, gitopsCluster });
      }
    }
  }
  return [...wanted.values()];
}
