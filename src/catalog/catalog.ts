/**
 * The [index] stage: the Pipelines the gateway has loaded, and which application objects they
 * reference. A hint about an object no Pipeline references is dropped before any cluster read;
 * a referenced one maps to the Pipelines to re-evaluate. The resync plans its LISTs from it.
 */
import { pipelineIdOf, type PipelineId } from '../pipeline/id.js';
import { objectKeyId, type ObjectKey } from '../pipeline/object-key.js';
import { FrozenPool } from '../json/frozen-pool.js';
import type { HaltRecord, Pipeline, PipelineStatus } from '../pipeline/pipeline-resource.js';
import type { ClusterNamingConfig } from './cluster-names.js';
import { observe, type PipelineState, type TargetSharing } from './pipeline-state.js';
import { ReferrerIndex } from './referrers.js';
import { StringTable } from './share-strings.js';
import { deriveTargets, sameTargets, type CatalogTarget } from './targets.js';

/** A Pipeline's state and what the catalog derived from its spec. */
interface Entry {
  readonly state: PipelineState;
  /** The environments' names in spec order: one shared list for Pipelines naming them alike. */
  readonly environments: readonly string[];
  readonly targets: readonly CatalogTarget[];
}

/** Distinct lists of environment names remembered; past it, the pool starts afresh. */
const MAX_NAME_LISTS = 1024;
/** Lists of environment names longer than this (as JSON) are each Pipeline's own. */
const MAX_NAME_LIST_JSON = 1024;
/**
 * Distinct spec targets and clusterRefs remembered, each kind in its own pool (so that targets
 * of their own, with a namespace per app, cannot crowd out the few clusterRefs); past it, a
 * pool starts afresh.
 */
const MAX_SHARED_TARGETS = 4096;
/** Targets longer than this (as JSON) are each Pipeline's own. */
const MAX_TARGET_JSON = 512;

/** Pipelines by id, with a reverse index from object key to the Pipelines referencing it. */
export class PipelineCatalog {
  /** A new state per upsert: its identity is the Pipeline's version (see head()). */
  private readonly entries = new Map<PipelineId, Entry>();
  /** objectKeyId -> the Pipelines with a target on that object. */
  private readonly reverse = new ReferrerIndex();
  private readonly strings = new StringTable();
  private readonly names = new FrozenPool(MAX_NAME_LISTS, MAX_NAME_LIST_JSON);
  private readonly clusterRefs = new FrozenPool(MAX_SHARED_TARGETS, MAX_TARGET_JSON);
  private readonly specTargets = new FrozenPool(MAX_SHARED_TARGETS, MAX_TARGET_JSON);
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
   * Adds or replaces the Pipeline with this namespace/name by its state (observe()). Returns
   * true when the objects it references changed (always for a new Pipeline), false when only
   * other fields did. `pipeline` is not changed, and nothing of it is kept. At an unchanged
   * `metadata.generation` the spec held stands (see observe()), so the spec held is always the
   * one its targets were derived from.
   */
  upsert(pipeline: Pipeline): boolean {
    const id = pipelineIdOf(pipeline);
    const previous = this.entries.get(id);
    const state = observe(pipeline, {
      previous: previous?.state,
      intern: this.intern,
      share: this.share,
    });
    const derived = state.spec === previous?.state.spec ? previous : this.derive(state);
    const unchanged = previous !== undefined && sameTargets(previous.targets, derived.targets);
    // Unchanged references keep the objects already indexed, so the new ones can be collected.
    const targets = unchanged ? previous.targets : derived.targets;
    this.entries.set(id, { state, environments: derived.environments, targets });
    if (!unchanged) {
      if (previous !== undefined) this.reverse.unlink(id, previous.targets);
      this.reverse.link(id, targets);
    }
    this.tell(id);
    return !unchanged;
  }

  /** Removes a Pipeline and its references; returns whether it was present. */
  remove(id: PipelineId): boolean {
    const previous = this.entries.get(id);
    if (previous === undefined) return false;
    this.entries.delete(id);
    this.reverse.unlink(id, previous.targets);
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
   * The state of the Pipeline last upserted (see PipelineState), or undefined; O(1). The same
   * object until the next upsert of this Pipeline, so it also serves as its version (e.g. a
   * cache key). Deep-frozen: shared by every reader.
   */
  get(id: PipelineId): PipelineState | undefined {
    return this.entries.get(id)?.state;
  }

  /** The same as get(): for readers of its metadata and spec alone. */
  head(id: PipelineId): PipelineState | undefined {
    return this.entries.get(id)?.state;
  }

  /** The names of the Pipeline's environments, in spec order (one list shared by equal ones). */
  environments(id: PipelineId): readonly string[] | undefined {
    return this.entries.get(id)?.environments;
  }

  /** The distinct clusters the Pipelines' targets are on, by the gateway's names. */
  clusters(): Set<string> {
    const out = new Set<string>();
    for (const entry of this.entries.values())
      for (const t of entry.targets) out.add(t.key.cluster);
    return out;
  }

  /** Each Pipeline's status as last observed, in no order (for scrape-time counts). */
  *statuses(): Generator<PipelineStatus | undefined, void, undefined> {
    for (const entry of this.entries.values()) yield entry.state.status;
  }

  /** Every Pipeline's state, in id order. */
  heads(): PipelineState[] {
    return this.all();
  }

  /** The halts in the status last upserted (`status.halts`); O(1). */
  halts(id: PipelineId): readonly HaltRecord[] | undefined {
    return this.entries.get(id)?.state.status?.halts;
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
    return this.reverse.of(objectKeyId(key));
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
    return [...this.entries.values()].map((entry) => entry.state.status?.halts);
  }

  /** Every Pipeline's state, in id order. */
  all(): PipelineState[] {
    return this.ids().flatMap((id) => {
      const state = this.get(id);
      return state === undefined ? [] : [state];
    });
  }

  /**
   * Every Pipeline's targets, in the order the catalog holds Pipelines: an object several
   * Pipelines reference comes once for each. What a resync pass reads (see planScopes).
   */
  *allTargets(): Generator<CatalogTarget, void, undefined> {
    for (const entry of this.entries.values()) yield* entry.targets;
  }

  /** What follows from a new spec: its environments' names and its targets. */
  private derive(state: PipelineState): Omit<Entry, 'state'> {
    const environments = this.names.one(state.spec.environments.map((env) => env.name));
    return { environments, targets: deriveTargets(state, this.config, environments) };
  }

  private readonly intern = (text: string): string => this.strings.one(text);

  /** Spec targets and their clusterRefs, one instance per distinct value (see observe()). */
  private readonly share: TargetSharing = {
    clusterRef: (ref) => this.clusterRefs.one(ref),
    target: (target) => this.specTargets.one(target),
  };

  private tell(id: PipelineId): void {
    for (const listener of this.listeners) listener(id);
  }
}
