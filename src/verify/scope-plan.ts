/**
 * How a resync pass reads its targets: the catalog's one LIST per (cluster, namespace, kind),
 * widened to one cluster-wide LIST per (cluster, kind) where a cluster holds the targets of
 * many namespaces (one namespace per application), unless that cluster refused it before.
 */
import type { CatalogTarget, ListScope } from '../catalog/targets.js';

/** The namespace of a cluster-wide scope (no real namespace is empty). */
export const ALL_NAMESPACES = '';

/**
 * More namespaces of one kind in one cluster than this, and one paged cluster-wide LIST reads
 * them: it costs the unreferenced objects of the cluster too, but not one request per namespace.
 */
export const CLUSTER_WIDE_ABOVE = 8;

/** True for a scope that lists every namespace of its cluster. */
export function isClusterWide(scope: ListScope): boolean {
  return scope.namespace === ALL_NAMESPACES;
}

/**
 * `plan` with the scopes of each (cluster, kind) that has more than CLUSTER_WIDE_ABOVE
 * namespaces merged into one cluster-wide scope, except on clusters `refused` names.
 */
export function widenScopes(
  plan: ReadonlyMap<ListScope, readonly CatalogTarget[]>,
  refused: (cluster: string) => boolean,
): Map<ListScope, readonly CatalogTarget[]> {
  const groups = new Map<string, ListScope[]>();
  for (const scope of plan.keys()) {
    const id = `${scope.cluster}|${scope.group}|${scope.kind}`;
    const group = groups.get(id) ?? [];
    group.push(scope);
    groups.set(id, group);
  }
  const out = new Map<ListScope, readonly CatalogTarget[]>();
  for (const scopes of groups.values()) {
    const first = scopes[0];
    if (first === undefined) continue;
    if (scopes.length <= CLUSTER_WIDE_ABOVE || refused(first.cluster)) {
      for (const scope of scopes) out.set(scope, plan.get(scope) ?? []);
      continue;
    }
    const apiVersions = [...new Set(scopes.flatMap((s) => s.apiVersions))];
    const wide = { ...first, namespace: ALL_NAMESPACES, apiVersions };
    out.set(
      wide,
      scopes.flatMap((s) => plan.get(s) ?? []),
    );
  }
  return out;
}
