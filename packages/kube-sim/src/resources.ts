/**
 * The resource types a simulated cluster serves: the fixed built-ins and whatever CRDs register.
 * Storage is keyed by group/resource (not version), as in the real server, so every served
 * version of a CRD reads and writes the same objects.
 */
import type { SchemaCheck } from './crd.js';

/** A JSON object as stored and served; metadata is accessed through helpers in objects.ts. */
export type SimObject = Record<string, unknown>;

/** A printer column of a CRD version (`additionalPrinterColumns`). */
export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
  priority?: number;
  format?: string;
}

/** One served group/version/resource and everything the server needs to know about it. */
export interface ResourceType {
  group: string;
  version: string;
  /** Lower-case plural, the URL segment. */
  resource: string;
  singular: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  /** Whether `/status` is a separate subresource (CRD `subresources.status`). */
  statusSubresource: boolean;
  /** Built-in types answer DELETE with a Status and need no resourceVersion on PUT. */
  builtin: boolean;
  /** Whether writes set and bump metadata.generation (CRs and CRDs do; ConfigMaps do not). */
  tracksGeneration: boolean;
  /** Validation and pruning for this version; undefined means accept any object. */
  schema?: SchemaCheck;
  printerColumns: PrinterColumn[];
}

/** `group/version`, or just `version` for the core group. */
export function apiVersionOf(t: { group: string; version: string }): string {
  return t.group === '' ? t.version : `${t.group}/${t.version}`;
}

/** The storage key of a resource type: shared by all versions of one group/resource. */
export function groupResource(t: { group: string; resource: string }): string {
  return `${t.resource}.${t.group}`;
}

/** Splits an apiVersion string into group and version. */
export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** A built-in type at `apiVersion` (`v1` or `group/version`); namespaced unless told otherwise. */
function builtin(
  apiVersion: string,
  resource: string,
  kind: string,
  extra: Partial<ResourceType> = {},
): ResourceType {
  return {
    ...splitApiVersion(apiVersion),
    resource,
    singular: kind.toLowerCase(),
    kind,
    listKind: `${kind}List`,
    namespaced: true,
    shortNames: [],
    categories: [],
    statusSubresource: false,
    builtin: true,
    tracksGeneration: false,
    printerColumns: [],
    ...extra,
  };
}

/** The built-in types every simulated cluster serves. */
export function builtinTypes(): ResourceType[] {
  return [
    builtin('v1', 'namespaces', 'Namespace', {
      namespaced: false,
      shortNames: ['ns'],
      statusSubresource: true,
    }),
    builtin('v1', 'secrets', 'Secret'),
    builtin('v1', 'configmaps', 'ConfigMap', { shortNames: ['cm'] }),
    builtin('v1', 'events', 'Event', { shortNames: ['ev'] }),
    builtin('coordination.k8s.io/v1', 'leases', 'Lease'),
    // Stored, not run: what a deployment's manifests hold (no controller acts on them).
    builtin('v1', 'serviceaccounts', 'ServiceAccount', { shortNames: ['sa'] }),
    builtin('v1', 'services', 'Service', { shortNames: ['svc'], statusSubresource: true }),
    builtin('apps/v1', 'deployments', 'Deployment', {
      shortNames: ['deploy'],
      statusSubresource: true,
      tracksGeneration: true,
      categories: ['all'],
    }),
    builtin('policy/v1', 'poddisruptionbudgets', 'PodDisruptionBudget', {
      shortNames: ['pdb'],
      statusSubresource: true,
      tracksGeneration: true,
    }),
    builtin('networking.k8s.io/v1', 'networkpolicies', 'NetworkPolicy', {
      shortNames: ['netpol'],
      tracksGeneration: true,
    }),
    builtin('networking.k8s.io/v1', 'ingresses', 'Ingress', {
      shortNames: ['ing'],
      statusSubresource: true,
      tracksGeneration: true,
    }),
    ...rbacTypes(),
    builtin('apiextensions.k8s.io/v1', 'customresourcedefinitions', 'CustomResourceDefinition', {
      namespaced: false,
      shortNames: ['crd', 'crds'],
      statusSubresource: true,
      tracksGeneration: true,
      categories: ['api-extensions'],
    }),
  ];
}

/** rbac.authorization.k8s.io/v1: Roles and their bindings, namespaced and cluster-wide. */
function rbacTypes(): ResourceType[] {
  const rbac = 'rbac.authorization.k8s.io/v1';
  return [
    builtin(rbac, 'roles', 'Role'),
    builtin(rbac, 'rolebindings', 'RoleBinding'),
    builtin(rbac, 'clusterroles', 'ClusterRole', { namespaced: false }),
    builtin(rbac, 'clusterrolebindings', 'ClusterRoleBinding', { namespaced: false }),
  ];
}

/** The set of served types, indexed for the lookups the HTTP layer and code API need. */
export class Registry {
  private readonly types = new Map<string, ResourceType>();
  /** Which CRD (by name) registered which group/version/resource keys. */
  private readonly byCrd = new Map<string, string[]>();

  constructor() {
    for (const t of builtinTypes()) this.types.set(gvrKey(t.group, t.version, t.resource), t);
  }

  /** The type served at /apis/{group}/{version}/{resource}, if any. */
  byResource(group: string, version: string, resource: string): ResourceType | undefined {
    return this.types.get(gvrKey(group, version, resource));
  }

  /** The type for an object's apiVersion and kind, if served. */
  byKind(apiVersion: string, kind: string): ResourceType | undefined {
    const { group, version } = splitApiVersion(apiVersion);
    for (const t of this.types.values()) {
      if (t.group === group && t.version === version && t.kind === kind) return t;
    }
    return undefined;
  }

  /** Every served type, in registration order (built-ins first). */
  all(): ResourceType[] {
    return [...this.types.values()];
  }

  /** Replaces whatever the named CRD served before with `types`. */
  registerCrd(crdName: string, types: ResourceType[]): void {
    this.unregisterCrd(crdName);
    const keys = types.map((t) => gvrKey(t.group, t.version, t.resource));
    types.forEach((t, i) => this.types.set(keys[i] ?? '', t));
    this.byCrd.set(crdName, keys);
  }

  /** Stops serving the types of a deleted CRD. */
  unregisterCrd(crdName: string): void {
    for (const key of this.byCrd.get(crdName) ?? []) this.types.delete(key);
    this.byCrd.delete(crdName);
  }

  /** Group names in discovery order, each with its served versions (preferred first). */
  groups(): { name: string; versions: string[] }[] {
    const out = new Map<string, string[]>();
    for (const t of this.types.values()) {
      if (t.group === '') continue;
      const versions = out.get(t.group) ?? [];
      if (!versions.includes(t.version)) versions.push(t.version);
      out.set(t.group, versions);
    }
    return [...out.entries()].map(([name, versions]) => ({
      name,
      versions: sortVersions(versions),
    }));
  }

  /** The types served in one group/version. */
  inGroupVersion(group: string, version: string): ResourceType[] {
    return this.all().filter((t) => t.group === group && t.version === version);
  }
}

function gvrKey(group: string, version: string, resource: string): string {
  return `${group}/${version}/${resource}`;
}

/** Kubernetes version priority: GA > beta > alpha, higher numbers first. */
export function sortVersions(versions: string[]): string[] {
  const rank = (v: string): [number, number, number] => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (m === null) return [0, 0, 0];
    const stage = m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1;
    return [stage, Number(m[1]), Number(m[3] ?? 0)];
  };
  return [...versions].sort((a, b) => {
    const ra = rank(a);
    const rb = rank(b);
    return rb[0] - ra[0] || rb[1] - ra[1] || rb[2] - ra[2];
  });
}
