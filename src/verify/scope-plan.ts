/**
 * How a resync pass reads the catalog's targets: one LIST per (cluster, namespace, kind), or
 * one cluster-wide LIST per (cluster, kind) where a cluster holds the targets of many
 * namespaces (one namespace per application), unless that cluster refused it before.
 */
import type { CatalogTarget, ListScope } from '../catalog/targets.js';
import type { TargetStatus } from '../evaluate/decisions.js';
import { sortApiVersions } from '../pipeline/api-version.js';

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
 * The LISTs that read `targets`, each object once: one per (cluster, group, kind, namespace),
 * merged into one cluster-wide LIST per (cluster, group, kind) holding targets in more than
 * CLUSTER_WIDE_ABOVE namespaces, except on clusters `perNamespaceOnly` names. Each scope lists
 * every apiVersion its targets use, most preferred first; scopes come sorted by cluster,
 * namespace, group and kind.
 *
 * Why from the targets, not from a scope per namespace widened after: with one namespace per
 * application that is a scope per target (60,000 at 10,000 applications, 15 MiB held through a
 * pass); the wide groups are found by counting namespaces, so only the LISTs made are built.
 */
export function planScopes(
  targets: Iterable<CatalogTarget>,
  perNamespaceOnly: (cluster: string) => boolean,
): Map<ListScope, CatalogTarget[]> {
  const all = [...targets];
  const wide = wideGroups(all, perNamespaceOnly);
  const scopes = new Map<string, PlannedScope>();
  const seen = new Set<string>();
  for (const t of all) {
    const { cluster, group, kind } = t.key;
    const namespace = wide.has(groupId(t)) ? ALL_NAMESPACES : t.key.namespace;
    const id = JSON.stringify([cluster, namespace, group, kind]);
    let planned = scopes.get(id);
    if (planned === undefined) {
      planned = { where: { cluster, group, kind, namespace }, targets: [], versions: new Set() };
      scopes.set(id, planned);
    }
    // Every Pipeline's apiVersion for the scope, each object once.
    planned.versions.add(t.ref.apiVersion);
    if (seen.has(t.id)) continue;
    seen.add(t.id);
    planned.targets.push(t);
  }
  const plan = new Map<ListScope, CatalogTarget[]>();
  // By cluster, namespace, group, kind: the JSON ids compare so.
  for (const [, { where, targets: listed, versions }] of [...scopes].sort(([a], [b]) =>
    a < b ? -1 : a > b ? 1 : 0,
  )) {
    const apiVersions = sortApiVersions(versions);
    // A scope exists only because a target added a version, so [0] is defined.
    plan.set({ ...where, apiVersion: apiVersions[0] ?? '', apiVersions }, listed);
  }
  return plan;
}

interface PlannedScope {
  where: Omit<ListScope, 'apiVersion' | 'apiVersions'>;
  targets: CatalogTarget[];
  versions: Set<string>;
}

/** The (cluster, group, kind) groups read cluster-wide (see planScopes), by groupId. */
function wideGroups(
  targets: readonly CatalogTarget[],
  perNamespaceOnly: (cluster: string) => boolean,
): Set<string> {
  const groups = new Map<string, { cluster: string; namespaces: Set<string> }>();
  for (const t of targets) {
    const id = groupId(t);
    let group = groups.get(id);
    if (group === undefined) {
      group = { cluster: t.key.cluster, namespaces: new Set() };
      groups.set(id, group);
    }
    group.namespaces.add(t.key.namespace);
  }
  const wide = new Set<string>();
  for (const [id, { cluster, namespaces }] of groups) {
    if (namespaces.size > CLUSTER_WIDE_ABOVE && !perNamespaceOnly(cluster)) wide.add(id);
  }
  return wide;
}

function groupId(t: CatalogTarget): string {
  return JSON.stringify([t.key.cluster, t.key.group, t.key.kind]);
}

/** True when a cluster-wide LIST was refused by RBAC (every target Forbidden). */
export function refusedWide(statuses: ReadonlyMap<CatalogTarget, TargetStatus>): boolean {
  const all = [...statuses.values()];
  return all.length > 0 && all.every((s) => s.health === 'Unknown' && s.reason === 'Forbidden');
}
