/**
 * Discovery documents and the version. Discovery is always the unaggregated (v1) form with
 * Content-Type application/json, which clients asking for aggregated discovery accept as a
 * fallback. The OpenAPI documents are in openapi-*.ts.
 */
import type { Registry, ResourceType } from './resources.js';
import { apiVersionOf, sortVersions } from './resources.js';

/** The Kubernetes version the simulator reports (kubectl's version dispatcher keys on it). */
export const SIM_VERSION = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.4-kube-sim',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2025-04-22T00:00:00Z',
  goVersion: 'go1.23.6',
  compiler: 'gc',
  platform: 'linux/amd64',
};

const ALL_VERBS = [
  'create',
  'delete',
  'deletecollection',
  'get',
  'list',
  'patch',
  'update',
  'watch',
];

function resourceEntries(types: ResourceType[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const t of types) {
    const entry: Record<string, unknown> = {
      name: t.resource,
      singularName: t.singular,
      namespaced: t.namespaced,
      kind: t.kind,
      verbs: ALL_VERBS,
    };
    if (t.shortNames.length > 0) entry.shortNames = t.shortNames;
    if (t.categories.length > 0) entry.categories = t.categories;
    out.push(entry);
    if (t.statusSubresource) {
      out.push({
        name: `${t.resource}/status`,
        singularName: '',
        namespaced: t.namespaced,
        kind: t.kind,
        verbs: ['get', 'patch', 'update'],
      });
    }
  }
  return out;
}

/** GET /api. */
export function apiVersions(serverAddress: string): unknown {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function groupEntry(name: string, versions: string[]): unknown {
  const sorted = sortVersions(versions);
  const gv = (v: string): unknown => ({ groupVersion: `${name}/${v}`, version: v });
  return { name, versions: sorted.map(gv), preferredVersion: gv(sorted[0] ?? '') };
}

/** GET /apis. */
export function apiGroupList(registry: Registry): unknown {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: registry.groups().map((g) => groupEntry(g.name, g.versions)),
  };
}

/** GET /apis/{group}, or undefined when the group is not served. */
export function apiGroup(registry: Registry, group: string): unknown {
  const g = registry.groups().find((x) => x.name === group);
  return g === undefined
    ? undefined
    : { kind: 'APIGroup', apiVersion: 'v1', ...(groupEntry(g.name, g.versions) as object) };
}

/** GET /api/v1 or /apis/{group}/{version}, or undefined when not served. */
export function apiResourceList(registry: Registry, group: string, version: string): unknown {
  const types = registry.inGroupVersion(group, version);
  if (types.length === 0) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: apiVersionOf({ group, version }),
    resources: resourceEntries(types),
  };
}
