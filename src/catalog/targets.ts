/**
 * A Pipeline's targets resolved to where their app object lives: the gateway's cluster name,
 * the object to read, and the key its verified state is stored under.
 */
import type { TargetLocation } from '../evaluate/decisions.js';
import { parseApiVersion } from '../pipeline/api-version.js';
import { objectKeyId, type ObjectKey } from '../pipeline/object-key.js';
import type { Pipeline } from '../pipeline/pipeline-resource.js';
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

/**
 * A CatalogTarget that is its own key and ref (each type reads its own fields): one object per
 * target instead of two, at fleet scale 60,000 fewer. Frozen. Its JSON is its own fields.
 */
class ResolvedTarget implements CatalogTarget, ObjectKey, ObjectRef {
  readonly cluster: string;
  readonly group: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly apiVersion: string;

  constructor(
    readonly environment: string,
    readonly index: number,
    readonly location: TargetLocation,
    readonly id: string,
    object: ObjectKey & ObjectRef,
  ) {
    this.cluster = object.cluster;
    this.group = object.group;
    this.kind = object.kind;
    this.namespace = object.namespace;
    this.name = object.name;
    this.apiVersion = object.apiVersion;
    Object.freeze(this);
  }

  get key(): ObjectKey {
    return this;
  }

  get ref(): ObjectRef {
    return this;
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
  pipeline: Pipeline,
  config: ClusterNamingConfig,
  locationOf: LocationOf = freshLocation,
): readonly CatalogTarget[] {
  const { appRef } = pipeline.spec;
  const { group } = parseApiVersion(appRef.apiVersion);
  const out: CatalogTarget[] = [];
  for (const env of pipeline.spec.environments) {
    env.targets.forEach((target, index) => {
      const cluster = clusterNameFor(target, pipeline.metadata.namespace, config);
      const { namespace } = target;
      const { kind, name, apiVersion } = appRef;
      // objectKeyId reads the key's fields only; the ref's apiVersion rides along.
      const object = { cluster, group, kind, namespace, name, apiVersion };
      out.push(
        new ResolvedTarget(
          env.name,
          index,
          locationOf(cluster, namespace),
          flatten(objectKeyId(object)),
          object,
        ),
      );
    });
  }
  return Object.freeze(out);
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
