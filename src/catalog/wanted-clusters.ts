import type { GatewayConfig } from '../config/gateway-config.js';
import type { WantedCluster } from '../kube/clusters.js';
import type { PipelineCatalog } from './catalog.js';
import { gitopsClusterRefFor } from './cluster-names.js';

/**
 * Every cluster the gateway must reach: configured ones plus any a Pipeline references, from
 * the clusters the catalog's targets name (each pass asks: the targets are already resolved).
 */
export function wantedClusters(
  config: GatewayConfig,
  catalog: Pick<PipelineCatalog, 'clusters'>,
): WantedCluster[] {
  const wanted = new Map<string, WantedCluster>();
  for (const c of config.clusters)
    wanted.set(c.name, { name: c.name, gitopsCluster: c.gitopsCluster });
  for (const name of catalog.clusters()) {
    // A name the config maps is there already; the management cluster has no GitopsCluster.
    const gitopsCluster = wanted.has(name) ? undefined : gitopsClusterRefFor(name, config);
    if (gitopsCluster !== undefined) wanted.set(name, { name, gitopsCluster });
  }
  return [...wanted.values()];
}
