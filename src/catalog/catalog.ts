/**
 * The [index] stage: the Pipelines the gateway has loaded, and which application objects they
 * reference. A hint about an object no Pipeline references is dropped before any cluster read;
 * a referenced one maps to the Pipelines to re-evaluate. The resync plans its LISTs from it.
 */
import { sortApiVersions } from '../pipeline/api-version.js';
import { pipelineIdOf, type PipelineId } from '../pipeline/id.js';
import { objectKeyId, type ObjectKey } from '../pipeline/object-key.js';
import type { HaltRecord, Pipeline, PipelineHead } from '../pipeline/pipeline-resource.js';
import type { ClusterNamingConfig } from './cluster-names.js';
import { packStatus, RecentStatuses, type PackedStatus } from './packed-status.js';
import { dropServerBookkeeping } from './server-bookkeeping.js';
import { ShapeTable } from './share-shapes.js';
import { StringTable } from './share-strings.js';
import { deriveTargets, sameTargets, type CatalogTarget, type ListScope } from './targets.js';

interface Entry {
  /** The Pipeline without its status: a new object per upsert, so its identity is its version. */
  head: PipelineHead;
  /** Its status, packed (see packed-status.ts); undefined when it has none. */
  status: PackedStatus | undefined;
  /** Its status.halts as upserted: the metrics count halts at every scrape. */
  halts: readonly HaltRecord[] | undefined;
  targets: readonly CatalogTarget[];
}

/**
 * The Pipelines referencing one object: most objects have exactly one, so that case is the id
 * itself rather than a Set (which costs about 150 bytes more per object at fleet scale).
 */
type Referrers = PipelineId | Set<PipelineId>;

/** Pipelines by id, with a reverse index from object key to the Pipelines referencing it. */
export class PipelineCatalog {
  private readonly entries = new Map<PipelineId, Entry>();
  /** objectKeyId -> the Pipelines with a target on that object. Never holds an empty set. */
  private readonly reverse = new Map<string, Referrers>();
  private readonly strings = new StringTable();
  private readonly shapes = new ShapeTable();
  private readonly unpacked = new RecentStatuses<PipelineId>();
  private readonly listeners = new Set<(id: PipelineId) => void>();

  /** `config` decides cluster names (see clusterNameFor); it is read whenever a spec changes. */
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
   * references changed (always for a new Pipeline), false when only other fields did. The
   * catalog takes `pipeline` as its own: it keeps the object as the Pipeline's head, its short
   * strings and small objects replaced in place by equal shared ones (see share-strings.ts,
   * share-shapes.ts), the server's bookkeeping it never reads dropped (server-bookkeeping.ts),
   * and its status packed and set to undefined in it (of the status only the `halts` list,
   * usually absent, stays as it was). At an unchanged `metadata.generation` its spec is
   * replaced by the one already held (trusted to be equal, as the API server's generation says),
   * so the spec held is always the one its targets were derived from.
   */
  upsert(pipeline: Pipeline): boolean {
    dropServerBookkeeping(pipeline.metadata);
    const id = pipelineIdOf(pipeline);
    const previous = this.entries.get(id);
    // Most updates are status writes. The API server moves the generation on every spec
    // change, so at the same generation the spec held stands (with its shared parts and its
    // targets), and the update's copy of it is dropped unwalked (the watch's cache too).
    const sameSpec =
      previous !== undefined &&
      pipeline.metadata.generation !== undefined &&
      previous.head.metadata.generation === pipeline.metadata.generation;
    if (sameSpec) pipeline.spec = previous.head.spec;
    const { spec, status } = pipeline;
    // The object itself becomes the head, without its status: the watch's cache holds it too
    // (it compares only metadata), so the head costs nothing more, and nothing parsed of the
    // status stays. Set to undefined, not deleted: a delete turns an object into a dictionary.
    (pipeline as { status?: unknown }).status = undefined;
    const head: PipelineHead = pipeline;
    this.strings.share(head);
    this.shapes.share(head);
    if (!sameSpec) this.shapes.shareSpecParts(spec);
    const derived = sameSpec
      ? previous.targets
      : deriveTargets(head, this.config, this.shapes.part);
    const unchanged = previous !== undefined && sameTargets(previous.targets, derived);
    // Unchanged references keep the objects already indexed, so the new ones can be collected.
    const targets = unchanged ? previous.targets : derived;
    const packed = status === undefined ? undefined : packStatus(status);
    this.entries.set(id, { head, status: packed, halts: status?.halts, targets });
    if (!unchanged) {
      if (previous !== undefined) this.unlink(id, previous.targets);
      this.link(id, targets);
    }
    this.tell(id);
    return !unchanged;
  }

  /** Removes a Pipeline and its references; returns whether it was present. */
  remove(id: PipelineId): boolean {
    const previous = this.entries.get(id);
    if (previous === undefined) return false;
    this.entries.delete(id);
    this.unpacked.forget(id);
    this.unlink(id, previous.targets);
    this.tell(id);
    return true;
  }

  /**
   * Calls `listener` with the id of every Pipeline upserted (its spec or status may have
   * changed) or removed, after the catalog holds the change; returns the unsubscribe. For the
   * web view's live updates: listeners must be quick and must not throw.
   */
  onChange(listener: (id: PipelineId) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** True when the Pipeline is loaded. */
  has(id: PipelineId): boolean {
    return this.entries.has(id);
  }

  /**
   * The Pipeline last upserted, or undefined: its head with its status unpacked (about 20
   * microseconds for six targets, see packed-status.ts), shared with other readers and never to
   * be changed. Readers of metadata and spec alone use head().
   */
  get(id: PipelineId): Pipeline | undefined {
    const entry = this.entries.get(id);
    if (entry === undefined) return undefined;
    const { head, status } = entry;
    return status === undefined
      ? { ...head }
      : { ...head, status: this.unpacked.unpack(id, status) };
  }

  /**
   * The Pipeline last upserted without its status, or undefined; O(1). The same object until
   * the next upsert of this Pipeline, so it also serves as its version (e.g. a cache key).
   */
  head(id: PipelineId): PipelineHead | undefined {
    return this.entries.get(id)?.head;
  }

  /** Every Pipeline without its status (see head()), in id order. */
  heads(): PipelineHead[] {
    return this.ids().flatMap((id) => {
      const entry = this.entries.get(id);
      return entry === undefined ? [] : [entry.head];
    });
  }

  /** The halts in the status last upserted (`status.halts`), without unpacking it; O(1). */
  halts(id: PipelineId): readonly HaltRecord[] | undefined {
    return this.entries.get(id)?.halts;
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
    if (ids === undefined) return [];
    return typeof ids === 'string' ? [ids] : [...ids].sort();
  }

  /** A Pipeline's targets in spec order (environment, then target); empty when unknown. */
  targetsOf(id: PipelineId): readonly CatalogTarget[] {
    return this.entries.get(id)?.targets ?? [];
  }

  /** Ids of every indexed Pipeline, sorted. */
  ids(): PipelineId[] {
    return [...this.entries.keys()].sort();
  }

  /** Each Pipeline's status.halts (see halts()), in no order. */
  haltLists(): (readonly HaltRecord[] | undefined)[] {
    return [...this.entries.values()].map((entry) => entry.halts);
  }

  /**
   * Every indexed Pipeline whole, in id order: each status unpacked (see get()), about 0.2 s
   * for 10,000 Pipelines, so for rare callers; heads() for metadata and spec.
   */
  all(): Pipeline[] {
    return this.ids().flatMap((id) => {
      const pipeline = this.get(id);
      return pipeline === undefined ? [] : [pipeline];
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
        const scope = scopes.get(scopeId(t.key));
        if (seen.has(t.id) || scope === undefined) continue;
        seen.add(t.id);
        const list = plan.get(scope) ?? [];
        list.push(t);
        plan.set(scope, list);
      }
    }
    return plan;
  }

  private tell(id: PipelineId): void {
    for (const listener of this.listeners) listener(id);
  }

  private link(id: PipelineId, targets: readonly CatalogTarget[]): void {
    for (const t of targets) {
      const ids = this.reverse.get(t.id);
      if (ids === undefined || ids === id) this.reverse.set(t.id, id);
      else if (typeof ids === 'string') this.reverse.set(t.id, new Set([ids, id]));
      else ids.add(id);
    }
  }

  private unlink(id: PipelineId, targets: readonly CatalogTarget[]): void {
    for (const t of targets) {
      const ids = this.reverse.get(t.id);
      if (ids === undefined || typeof ids === 'string') {
        if (ids === id) this.reverse.delete(t.id);
        continue;
      }
      ids.delete(id);
      // Back to the single-referrer form when one is left (a Set never holds fewer than two).
      const [last] = ids;
      if (ids.size === 1 && last !== undefined) this.reverse.set(t.id, last);
    }
  }
}

/** The LIST scope an object key or scope belongs to. */
function scopeId(s: { cluster: string; group: string; kind: string; namespace: string }): string {
  return JSON.stringify([s.cluster, s.namespace, s.group, s.kind]);
}
