/**
 * Weave GitOps' way of naming remote clusters, for simulations: a `GitopsCluster` in the
 * management cluster whose `spec.secretRef` names a Secret holding the cluster's kubeconfig
 * under `value`, as pipeline-controller (and promotion-gateway) read it.
 */
import type { SimCluster } from './cluster.js';

/** Where the GitopsCluster goes and whose credentials its kubeconfig carries. */
export interface GitopsClusterOptions {
  /** Namespace of the GitopsCluster and its Secret in the management cluster. */
  namespace: string;
  /** The GitopsCluster's name; defaults to the cluster's. */
  name?: string;
  /** The user of `cluster` the kubeconfig authenticates as. */
  user: string;
}

/**
 * Registers `cluster` in `management`: Secret `<name>-kubeconfig` (key `value`) with a
 * kubeconfig for `user` that trusts the cluster's CA, and GitopsCluster `<name>` naming it.
 * The GitopsCluster CRD must already be applied to `management`.
 */
export function registerGitopsCluster(
  management: SimCluster,
  cluster: SimCluster,
  options: GitopsClusterOptions,
): void {
  const name = options.name ?? cluster.name;
  const { namespace } = options;
  management.ensureNamespace(namespace);
  management.apply({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `${name}-kubeconfig`, namespace },
    type: 'Opaque',
    data: { value: Buffer.from(cluster.kubeconfig(options.user)).toString('base64') },
  });
  management.apply({
    apiVersion: 'gitops.weave.works/v1alpha1',
    kind: 'GitopsCluster',
    metadata: { name, namespace },
    spec: { secretRef: { name: `${name}-kubeconfig` } },
  });
}
