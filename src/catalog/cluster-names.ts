/**
 * The gateway's names for clusters. A Pipeline target names its cluster by a GitopsCluster
 * reference (or nothing, for the management cluster); everything downstream (hint keys, the
 * cluster directory, `/v1/events/{cluster}`) uses one flat string name instead.
 */
import type { GatewayConfig } from '../config/gateway-config.js';
import type { PipelineTarget } from '../pipeline/pipeline-resource.js';

/** A GitopsCluster object in the management cluster, by namespace and name. */
export interface GitopsClusterRef {
  namespace: string;
  name: string;
}

/** The part of the configuration that decides cluster names. */
export type ClusterNamingConfig = Pick<GatewayConfig, 'clusters' | 'management'>;

/**
 * The canonical name of a GitopsCluster that no config entry maps: `namespace/name`. The '/'
 * can never appear in a configured (DNS-label) name, so it cannot collide with one, and no
 * events endpoint (and no credential) exists for it.
 */
export function unmappedClusterName(ref: GitopsClusterRef): string {
  return `${ref.namespace}/${ref.name}`;
}

/** True when `cluster` is the canonical name of an unmapped GitopsCluster. */
export function isUnmappedClusterName(cluster: string): boolean {
  return cluster.includes('/');
}

/**
 * The GitopsCluster a target points at, with the namespace defaulted to the Pipeline's own
 * (as pipeline-controller does); undefined for a target on the management cluster.
 */
export function gitopsClusterRefOf(
  target: PipelineTarget,
  pipelineNamespace: string,
): GitopsClusterRef | undefined {
  const ref = target.clusterRef;
  if (ref === undefined) return undefined;
  const namespace =
    ref.namespace !== undefined && ref.namespace !== '' ? ref.namespace : pipelineNamespace;
  return { namespace, name: ref.name };
}

/**
 * The gateway's name for the cluster of a target: the management cluster's name without a
 * clusterRef; the configured cluster whose gitopsCluster matches; else the unmapped name.
 */
export function clusterNameFor(
  target: PipelineTarget,
  pipelineNamespace: string,
  config: ClusterNamingConfig,
): string {
  const ref = gitopsClusterRefOf(target, pipelineNamespace);
  if (ref === undefined) return config.management.name;
  return configuredNameOf(ref, config) ?? unmappedClusterName(ref);
}

/** The configured name mapped to a GitopsCluster, or undefined when no entry maps it. */
export function configuredNameOf(
  ref: GitopsClusterRef,
  config: Pick<GatewayConfig, 'clusters'>,
): string | undefined {
  // First match wins; config validation is where duplicate mappings are rejected.
  const entry = config.clusters.find(
    (c) => c.gitopsCluster?.namespace === ref.namespace && c.gitopsCluster.name === ref.name,
  );
  return entry?.name;
}

/**
 * The inverse of clusterNameFor: the GitopsCluster behind a cluster name (configured mapping,
 * or parsed from an unmapped name); undefined for the management cluster or an unknown name.
 */
export function gitopsClusterRefFor(
  cluster: string,
  config: ClusterNamingConfig,
): GitopsClusterRef | undefined {
  if (cluster === config.management.name) return undefined;
  const entry = config.clusters.find((c) => c.name === cluster);
  if (entry !== undefined) {
    return entry.gitopsCluster === undefined ? undefined : { ...entry.gitopsCluster };
  }
  return parseUnmappedClusterName(cluster);
}

/** Parses `namespace/name` back into a ref; undefined when `cluster` is not of that form. */
export function parseUnmappedClusterName(cluster: string): GitopsClusterRef | undefined {
  const slash = cluster.indexOf('/');
  if (slash <= 0 || slash === cluster.length - 1) return undefined;
  const namespace = cluster.slice(0, slash);
  const name = cluster.slice(slash + 1);
  if (name.includes('/')) return undefined;
  return { namespace, name };
}

/**
 * Every configured remote cluster name with its GitopsCluster, in config order (the
 * management cluster and entries without a gitopsCluster are left out).
 */
export function configuredGitopsClusters(
  config: Pick<GatewayConfig, 'clusters'>,
): ReadonlyMap<string, GitopsClusterRef> {
  const out = new Map<string, GitopsClusterRef>();
  for (const c of config.clusters) {
    if (c.gitopsCluster !== undefined && !out.has(c.name)) out.set(c.name, { ...c.gitopsCluster });
  }
  return out;
}
