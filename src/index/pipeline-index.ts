/**
 * The [index] stage: which Pipelines reference which application object. A hint about an
 * object no Pipeline references is dropped before any cluster read; a referenced one maps to
 * the Pipelines to re-evaluate. The resync uses the same index to plan its LISTs.
 */
import type { TargetLocation } from '../evaluate/types.js';
import { hintKeyString } from '../hints/types.js';
import type { HintKey } from '../hints/types.js';
import type { ObjectRef } from '../kube/types.js';
import type { Pipeline } from '../pipeline/types.js';
import { apiGroupOf, sortApiVersions } from './api-version.js';
import { clusterNameFor } from './cluster-names.js';
import type { ClusterNamingConfig } from './cluster-names.js';

/** One target of a Pipeline, resolved to where its app object lives and how to read it. */
export interface IndexedTarget {
  environment: string;
  /** Position of the target within its environment's `targets`. */
  index: number;
  location: TargetLocation;
  /** The object to read; apiVersion is the Pipeline's appRef.apiVersion. */
  ref: ObjectRef;
  key: HintKey;
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

interface Entry {
  pipeline: Pipeline;
  targets: readonly IndexedTarget[];
  /** Canonical text of `targets`, to tell a reference change from any other spec change. */
  signature: string;
}

/** The id of a Pipeline in the index and the queues: `namespace/name`. */
export function pipelineId(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/** Splits a pipeline id; undefined when it is not `namespace/name`. */
export function parsePipelineId(id: string): { namespace: string; name: string } | undefined {
  const slash = id.indexOf('/');
  if (slash <= 0 || slash === id.length - 1 || id.includes('/', slash + 1)) return undefined;
  return { namespace: id.slice(0, slash), name: id.slice(slash + 1) };
}

/** Derives a Pipeline's targets, in spec order (environment, then target). */
export function deriveTargets(
  pipeline: Pipeline,
  config: ClusterNamingConfig,
): readonly IndexedTarget[] {
  const { appRef } = pipeline.spec;
  const group = apiGroupOf(appRef.apiVersion);
  const out: IndexedTarget[] = [];
  for (const env of pipeline.spec.environments) {
    env.targets.forEach((target, index) => {
      const cluster = clusterNameFor(target, pipeline.metadata.namespace, config);
      const { namespace } = target;
      out.push(
        Object.freeze({
          environment: env.name,
          index,
          location: Object.freeze({ cluster, namespace }),
          ref: Object.freeze({
            apiVersion: appRef.apiVersion,
            kind: appRef.kind,
            namespace,
            name: appRef.name,
          }),
          key: Object.freeze({ cluster, group, kind: appRef.kind, namespace, name: appRef.name }),
        }),
      );
    });
  }
  return Object.freeze(out);
}

function signatureOf(targets: readonly IndexedTarget[]): string {
  return JSON.stringify(
    targets.map((t) => [t.environment, t.index, t.location.cluster, t.ref.apiVersion, t.ref]),
  );
}

/** Pipelines by id, with a reverse index from object key to the Pipelines referencing it. */
export class PipelineIndex {
  private readonly entries = new Map<string, Entry>();
  /** hintKeyString -> ids of Pipelines with a target on that object. Never holds an empty set. */
  private readonly reverse = new Map<string, Set<string>>();

  /** `config` decides cluster names (see clusterNameFor); it is read on every upsert. */
  constructor(private readonly config: ClusterNamingConfig) {}

  /** Number of Pipelines indexed. */
  get size(): number {
    return this.entries.size;
  }

  /** Number of distinct objects referenced by some Pipeline (for metrics and leak checks). */
  get keyCount(): number {
    return this.reverse.size;
  }

  /**
   * Adds or replaces the Pipeline with this namespace/name. Returns true when the objects it
   * references changed (always for a new Pipeline), false when only other fields did.
   */
  upsert(pipeline: Pipeline): boolean {
    const id = pipelineId(pipeline.metadata.namespace, pipeline.metadata.name);
    const targets = deriveTargets(pipeline, this.config);
    const signature = signatureOf(targets);
    const previous = this.entries.get(id);
    this.entries.set(id, { pipeline, targets, signature });
    if (previous?.signature === signature) return false;
    if (previous !== undefined) this.unlink(id, previous.targets);
    this.link(id, targets);
    return true;
  }

  /** Removes a Pipeline and its references; returns whether it was present. */
  remove(namespace: string, name: string): boolean {
    const id = pipelineId(namespace, name);
    const previous = this.entries.get(id);
    if (previous === undefined) return false;
    this.entries.delete(id);
    this.unlink(id, previous.targets);
    return true;
  }

  /** True when a Pipeline with this namespace/name is indexed. */
  has(namespace: string, name: string): boolean {
    return this.entries.has(pipelineId(namespace, name));
  }

  /** The stored Pipeline (the object last passed to upsert), or undefined. */
  get(namespace: string, name: string): Pipeline | undefined {
    return this.entries.get(pipelineId(namespace, name))?.pipeline;
  }

  /** The stored Pipeline by id, or undefined. */
  getById(id: string): Pipeline | undefined {
    return this.entries.get(id)?.pipeline;
  }

  /** True when some Pipeline has a target on this object; O(1). */
  references(key: HintKey): boolean {
    return this.reverse.has(hintKeyString(key));
  }

  /** Ids of the Pipelines with a target on this object, sorted; empty when none. */
  pipelinesFor(key: HintKey): string[] {
    const ids = this.reverse.get(hintKeyString(key));
    return ids === undefined ? [] : [...ids].sort();
  }

  /** A Pipeline's targets in spec order (environment, then target); empty when unknown. */
  targetsOf(id: string): readonly IndexedTarget[] {
    return this.entries.get(id)?.targets ?? [];
  }

  /** Ids of every indexed Pipeline, sorted. */
  ids(): string[] {
    return [...this.entries.keys()].sort();
  }

  /** Every indexed Pipeline, in id order. */
  all(): Pipeline[] {
    return this.ids().flatMap((id) => {
      const entry = this.entries.get(id);
      return entry === undefined ? [] : [entry.pipeline];
    });
  }

  /**
   * The distinct (cluster, group, kind, namespace) scopes some Pipeline references, sorted by
   * cluster, namespace, group, kind: the resync makes one LIST per scope for all Pipelines.
   */
  listScopes(): ListScope[] {
    const scopes = new Map<
      string,
      { scope: Omit<ListScope, 'apiVersion' | 'apiVersions'>; versions: Set<string> }
    >();
    for (const entry of this.entries.values()) {
      for (const t of entry.targets) {
        const id = JSON.stringify([t.key.cluster, t.key.namespace, t.key.group, t.key.kind]);
        let scope = scopes.get(id);
        if (scope === undefined) {
          const { cluster, group, kind, namespace } = t.key;
          scope = { scope: { cluster, group, kind, namespace }, versions: new Set() };
          scopes.set(id, scope);
        }
        scope.versions.add(t.ref.apiVersion);
      }
    }
    return [...scopes.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, { scope, versions }]) => {
        const apiVersions = sortApiVersions(versions);
        // A scope exists only because some target added a version, so [0] is defined.
        return { ...scope, apiVersion: apiVersions[0] ?? '', apiVersions };
      });
  }

  private link(id: string, targets: readonly IndexedTarget[]): void {
    for (const t of targets) {
      const k = hintKeyString(t.key);
      let ids = this.reverse.get(k);
      if (ids === undefined) {
        ids = new Set();
        this.reverse.set(k, ids);
      }
      ids.add(id);
    }
  }

  private unlink(id: string, targets: readonly IndexedTarget[]): void {
    for (const t of targets) {
      const k = hintKeyString(t.key);
      const ids = this.reverse.get(k);
      if (ids === undefined) continue;
      ids.delete(id);
      if (ids.size === 0) this.reverse.delete(k);
    }
  }
}
