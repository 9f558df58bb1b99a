/**
 * A Pipeline's targets resolved to where their app object lives: the gateway's cluster name,
 * the object to read, and the key its verified state is stored under.
 */
import type { TargetLocation } from '../evaluate/decisions.js';
import { parseApiVersion } from '../pipeline/api-version.js';
import { objectKeyId, type ObjectKey } from '../pipeline/object-key.js';
import type { PipelineHead } from '../pipeline/pipeline-resource.js';
import { flatten } from '../pipeline/text.js';
import type { ObjectRef } from '../kube/ports.js';
import { clusterNameFor, type ClusterNamingConfig } from './cluster-names.js';

/** One target of a Pipeline, resolved to where its app object lives and how to read it. */
export interface CatalogTarget {
  readonly environment: string;
  /** Position of the target within its environment's `targets`. */
  readonly index: number;
  readonly location: TargetLocation;
  /** The object to read; apiVersion is the Pipeline's appRef.apiVersion. */
  readonly ref: ObjectRef;
  readonly key: ObjectKey;
  /** objectKeyId(key), computed once: every index of verified state is keyed by it. */
  readonly id: string;
}

/**
 * One LIST the resync makes, shared by every Pipeline referencing objects of this group/kind
 * in this cluster and namespace. `apiVersion` is the preferred one (see `apiVersions`).
 */
export interface ListScope {
  cluster: string;
  group: string;
  kind: string;
  namespace: string;
  /** The most preferred of `apiVersions` by Kubernetes version priority (v2 over v2beta1). */
  apiVersion: string;
  /** Every apiVersion some Pipeline uses for this scope, most preferred first (for fallback). */
  apiVersions: string[];
}

/** What every target of one Pipeline shares: the app object's group, kind, name and apiVersion. */
interface AppObject {
  readonly group: string;
  readonly kind: string;
  readonly name: string;
  readonly apiVersion: string;
}

/**
 * A CatalogTarget that is its own key and ref (each type reads its own fields): one object per
 * target, holding only what is its own: its place, location, id and its Pipeline's app object
 * (shared by the Pipeline's targets); the key's and ref's fields are read through them. Why: at
 * 8 bytes a field (Node's V8 keeps full pointers) ten own fields cost 104 bytes per target,
 * these five 64. Frozen. Its JSON is every field, as if they were its own.
 */
class ResolvedTarget implements CatalogTarget, ObjectKey, ObjectRef {
  constructor(
    readonly environment: string,
    readonly index: number,
    readonly location: TargetLocation,
    readonly id: string,
    private readonly app: AppObject,
  ) {
    Object.freeze(this);
  }

  get cluster(): string {
    return this.location.cluster;
  }

  get namespace(): string {
    return this.location.namespace;
  }

  get group(): string {
    return this.app.group;
  }

  get kind(): string {
    return this.app.kind;
  }

  get name(): string {
    return this.app.name;
  }

  get apiVersion(): string {
    return this.app.apiVersion;
  }

  get key(): ObjectKey {
    return this;
  }

  get ref(): ObjectRef {
    return this;
  }

  toJSON(): Record<string, unknown> {
    const { environment, index, location, id, cluster, namespace } = this;
    const { group, kind, name, apiVersion } = this.app;
    return { environment, index, location, id, cluster, group, kind, namespace, name, apiVersion };
  }
}

/** Gives the shared location object of a cluster and namespace (see LocationTable). */
export type LocationOf = (cluster: string, namespace: string) => TargetLocation;

/** A new frozen location each call: for callers that keep no table. */
const freshLocation: LocationOf = (cluster, namespace) => Object.freeze({ cluster, namespace });

/**
 * Derives a Pipeline's targets, in spec order (environment, then target); `locationOf` gives
 * each target's location object (the catalog's shares one per cluster and namespace).
 */
export function deriveTargets(
  pipeline: PipelineHead,
  config: ClusterNamingConfig,
  locationOf: LocationOf = freshLocation,
): readonly CatalogTarget[] {
  const { kind, name, apiVersion } = pipeline.spec.appRef;
  const app: AppObject = Object.freeze({
    group: parseApiVersion(apiVersion).group,
    kind,
    name,
    apiVersion,
  });
  const out: CatalogTarget[] = [];
  for (const env of pipeline.spec.environments) {
    env.targets.forEach((target, index) => {
      const cluster = clusterNameFor(target, pipeline.metadata.namespace, config);
      const location = locationOf(cluster, target.namespace);
      const id = flatten(objectKeyId({ ...app, cluster, namespace: target.namespace }));
      out.push(new ResolvedTarget(env.name, index, location, id, app));
    });
  }
  // A copy of exactly its length: a list grown by push keeps room for more (6 targets in 17
  // slots), and this one is kept for the life of the Pipeline.
  return Object.freeze(out.slice());
}

/** Distinct locations remembered; past it, further ones are each target's own. */
const MAX_LOCATIONS = 8192;

/**
 * One frozen location per cluster and namespace. Why: every target's verified status carries
 * its location, and where many apps share an environment's namespace (one per environment on
 * each cluster) a fleet of 60,000 targets has a few hundred distinct ones, not 60,000.
 */
export class LocationTable {
  /** cluster -> namespace -> location: keyed by the names themselves, no key text per entry. */
  private readonly table = new Map<string, Map<string, TargetLocation>>();
  private count = 0;

  /** The shared location of `cluster` and `namespace`, a LocationOf. */
  readonly locationOf: LocationOf = (cluster, namespace) => {
    let namespaces = this.table.get(cluster);
    const known = namespaces?.get(namespace);
    if (known !== undefined) return known;
    const location = freshLocation(cluster, namespace);
    if (this.count >= MAX_LOCATIONS) return location;
    if (namespaces === undefined) {
      namespaces = new Map();
      this.table.set(cluster, namespaces);
    }
    namespaces.set(namespace, location);
    this.count += 1;
    return location;
  };
}

/** True when both lists reference the same objects the same way, in the same order. */
export function sameTargets(a: readonly CatalogTarget[], b: readonly CatalogTarget[]): boolean {
  return a.length === b.length && a.every((t, i) => sameTarget(t, b[i]));
}

function sameTarget(a: CatalogTarget, b: CatalogTarget | undefined): boolean {
  return (
    a.id === b?.id &&
    a.environment === b.environment &&
    a.index === b.index &&
    a.ref.apiVersion === b.ref.apiVersion
  );
}
