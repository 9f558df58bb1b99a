/**
 * The [index] stage: the Pipelines the gateway has loaded, and which application objects they
 * reference. A hint about an object no Pipeline references is dropped before any cluster read;
 * a referenced one maps to the Pipelines to re-evaluate. The resync plans its LISTs from it.
 */
import { sortApiVersions } from '../pipeline/api-version.js';
import { pipelineIdOf, type PipelineId } from '../pipeline/id.js';
import { objectKeyId, type ObjectKey } from '../pipeline/object-key.js';
import type { Pipeline } from '../pipeline/types.js';
import type { ClusterNamingConfig } from './cluster-names.js';
import { deriveTargets, targetsSignature, type CatalogTarget, type ListScope } from './targets.js';

interface Entry {
  pipeline: Pipeline;
  targets: readonly CatalogTarget[];
  /** Canonical text of `targets`, to tell a reference change from any other spec change. */
  signature: string;
}

/** Pipelines by id, with a reverse index from object key to the Pipelines referencing it. */
export class PipelineCatalog {
  private readonly entries = new Map<PipelineId, Entry>();
  /** objectKeyId -> ids of Pipelines with a target on that object. Never holds an empty set. */
  private readonly reverse = new Map<string, Set<PipelineId>>();

  /** `config` decides cluster names (see clusterNameFor); it is read on every upsert. */
  constructor(private readonly config: ClusterNamingConfig) {}

  /** Number of Pipelines indexed. */
  get size(): number {
    return this.entries.size;
  }

  /** Number of distinct objects some Pipeline references. */
  get referencedObjects(): number {
    return this.reverse.size;
  }

  /**
   * Adds or replaces the Pipeline with this namespace/name. Returns true when the objects it
   * references changed (always for a new Pipeline), false when only other fields did.
   */
  upsert(pipeline: Pipeline): boolean {
    const id = pipelineIdOf(pipeline);
    const targets = deriveTargets(pipeline, this.config);
    const signature = targetsSignature(targets);
    const previous = this.entries.get(id);
    this.entries.set(id, { pipeline, targets, signature });
    if (previous?.signature === signature) return false;
    if (previous !== undefined) this.unlink(id, previous.targets);
    this.link(id, targets);
    return true;
  }

  /** Removes a Pipeline and its references; returns whether it was present. */
  remove(id: PipelineId): boolean {
    const previous = this.entries.get(id);
    if (previous === undefined) return false;
    this.entries.delete(id);
    this.unlink(id, previous.targets);
    return true;
  }

  /** True when the Pipeline is loaded. */
  has(id: PipelineId): boolean {
    return this.entries.has(id);
  }

  /** The stored Pipeline (the object last passed to upsert), or undefined. */
  get(id: PipelineId): Pipeline | undefined {
    return this.entries.get(id)?.pipeline;
  }

  /** True when some Pipeline has a target on this object; O(1). */
  references(key: ObjectKey): boolean {
    return this.reverse.has(objectKeyId(key));
  }

  /** True when some Pipeline references the object with this objectKeyId; O(1). */
  referencesId(id: string): boolean {
    return this.reverse.has(id);
  }

  /** Ids of the Pipelines with a target on this object, sorted; empty when none. */
  pipelinesFor(key: ObjectKey): PipelineId[] {
    const ids = this.reverse.get(objectKeyId(key));
    return ids === undefined ? [] : [...ids].sort();
  }

  /** A Pipeline's targets in spec order (environment, then target); empty when unknown. */
  targetsOf(id: PipelineId): readonly CatalogTarget[] {
    return this.entries.get(id)?.targets ?? [];
  }

  /** Ids of every indexed Pipeline, sorted. */
  ids(): PipelineId[] {
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
        const id = scopeId(t.key);
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

  /**
   * The resync's plan: every referenced target once, under the LIST scope that covers it. One
   * LIST per scope serves every Pipeline with targets there.
   */
  listPlan(): Map<ListScope, CatalogTarget[]> {
    const scopes = new Map(this.listScopes().map((s) => [scopeId(s), s]));
    const plan = new Map<ListScope, CatalogTarget[]>();
    const seen = new Set<string>();
    for (const entry of this.entries.values()) {
      for (const t of entry.targets) {
        const id = objectKeyId(t.key);
        const scope = scopes.get(scopeId(t.key));
        if (seen.has(id) || scope === undefined) continue;
        seen.add(id);
        const list = plan.get(scope) ?? [];
        list.push(t);
        plan.set(scope, list);
      }
    }
    return plan;
  }

  private link(id: PipelineId, targets: readonly CatalogTarget[]): void {
    for (const t of targets) {
      const k = objectKeyId(t.key);
      let ids = this.reverse.get(k);
      if (ids === undefined) {
        ids = new Set();
        this.reverse.set(k, ids);
      }
      ids.add(id);
    }
  }

  private unlink(id: PipelineId, targets: readonly CatalogTarget[]): void {
    for (const t of targets) {
      const k = objectKeyId(t.key);
      const ids = this.reverse.get(k);
      if (ids === undefined) continue;
      ids.delete(id);
      if (ids.size === 0) this.reverse.delete(k);
    }
  }
}

/** The LIST scope an object key or scope belongs to. */
function scopeId(s: { cluster: string; group: string; kind: string; namespace: string }): string {
  return JSON.stringify([s.cluster, s.namespace, s.group, s.kind]);
}
