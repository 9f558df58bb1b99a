/**
 * A Pipeline's targets resolved to where their app object lives: the gateway's cluster name,
 * the object to read, and the key its verified state is stored under.
 */
import type { TargetLocation } from '../evaluate/decisions.js';
import { parseApiVersion } from '../pipeline/api-version.js';
import { objectKeyId, type ObjectKey } from '../pipeline/object-key.js';
import type { PipelineHead } from '../pipeline/pipeline-resource.js';
import { flatten } from '../text/text.js';
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
 * What every target of one Pipeline shares: the app object's group, kind, name and apiVersion,
 * and the names of the Pipeline's environments (in spec order).
 */
interface AppObject {
  readonly group: string;
  readonly kind: string;
  readonly name: string;
  readonly apiVersion: string;
  readonly environments: readonly string[];
}

/**
 * A target's place in one number: its index within its environment times PLACES, plus its
 * environment's position (a small integer for any real Pipeline, exact for any).
 */
const PLACES = 2 ** 21;

/**
 * A CatalogTarget that is its own key, ref and location (each type reads its own fields): one
 * object per target, holding only what is its own: its cluster and namespace (its only own
 * enumerable fields, so as a location it is `{cluster, namespace}` to JSON, spreads and
 * comparisons), its place, id and its Pipeline's app object (shared by the Pipeline's targets);
 * the other fields are read through them. Why: at 8 bytes a field (Node's V8 keeps full
 * pointers) a location object apart cost 40 bytes per target where every app has namespaces of
 * its own, and ten own fields 104; these five cost 64. Frozen.
 */
class ResolvedTarget implements CatalogTarget, ObjectKey, ObjectRef, TargetLocation {
  readonly #place: number;
  readonly #id: string;
  readonly #app: AppObject;

  constructor(
    readonly cluster: string,
    readonly namespace: string,
    place: number,
    id: string,
    app: AppObject,
  ) {
    this.#place = place;
    this.#id = id;
    this.#app = app;
    Object.freeze(this);
  }

  get environment(): string {
    return this.#app.environments[this.#place % PLACES] ?? '';
  }

  get index(): number {
    return Math.floor(this.#place / PLACES);
  }

  get id(): string {
    return this.#id;
  }

  get location(): TargetLocation {
    return this;
  }

  get group(): string {
    return this.#app.group;
  }

  get kind(): string {
    return this.#app.kind;
  }

  get name(): string {
    return this.#app.name;
  }

  get apiVersion(): string {
    return this.#app.apiVersion;
  }

  get key(): ObjectKey {
    return this;
  }

  get ref(): ObjectRef {
    return this;
  }
}

/**
 * Derives a Pipeline's targets, in spec order (environment, then target); `names` are its
 * environments' names in spec order, which its targets share (the catalog passes one list for
 * every Pipeline naming them alike).
 */
export function deriveTargets(
  pipeline: Pick<PipelineHead, 'metadata' | 'spec'>,
  config: ClusterNamingConfig,
  names: readonly string[] = pipeline.spec.environments.map((env) => env.name),
): readonly CatalogTarget[] {
  const { kind, name, apiVersion } = pipeline.spec.appRef;
  const { environments } = pipeline.spec;
  const app: AppObject = Object.freeze({
    group: groupOf(apiVersion),
    kind,
    name,
    apiVersion,
    environments: Object.isFrozen(names) ? names : Object.freeze([...names]),
  });
  const out: CatalogTarget[] = [];
  environments.forEach((env, envAt) => {
    env.targets.forEach((target, index) => {
      const cluster = clusterNameFor(target, pipeline.metadata.namespace, config);
      const id = flatten(objectKeyId({ ...app, cluster, namespace: target.namespace }));
      out.push(new ResolvedTarget(cluster, target.namespace, index * PLACES + envAt, id, app));
    });
  });
  // A copy of exactly its length: a list grown by push keeps room for more (6 targets in 17
  // slots), and this one is kept for the life of the Pipeline.
  return Object.freeze(out.slice());
}

/** Distinct apiVersions whose group groupOf remembers; a fleet names a handful. */
const MAX_GROUPS = 256;
const groups = new Map<string, string>();

/**
 * The API group of `apiVersion`, one string per distinct apiVersion. Why: parsed apart, each
 * Pipeline's group is a slice of its own apiVersion string, 32 bytes that also keep that string.
 */
function groupOf(apiVersion: string): string {
  const known = groups.get(apiVersion);
  if (known !== undefined) return known;
  const group = parseApiVersion(apiVersion).group;
  if (groups.size < MAX_GROUPS) groups.set(apiVersion, group);
  return group;
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
