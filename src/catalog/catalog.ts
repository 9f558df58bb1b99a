/**
 * The [index] stage: the Pipelines the gateway has loaded, and which application objects they
 * reference. A hint about an object no Pipeline references is dropped before any cluster read;
 * a referenced one maps to the Pipelines to re-evaluate. The resync plans its LISTs from it.
 */
import { pipelineIdOf, type PipelineId } from '../pipeline/id.js';
import { objectKeyId, type ObjectKey } from '../pipeline/object-key.js';
import { FrozenPool } from '../json/frozen-pool.js';
import type {
  HaltRecord,
  Pipeline,
  PipelineHead,
  PipelineSpec,
  PipelineStatus,
} from '../pipeline/pipeline-resource.js';
import type { ClusterNamingConfig } from './cluster-names.js';
import { HeldPipeline, type HeldSpec } from './held-pipeline.js';
import { pack, RecentUnpacked } from './packed.js';
import { ReferrerIndex } from './referrers.js';
import { dropServerBookkeeping } from './server-bookkeeping.js';
import { StringTable } from './share-strings.js';
import { deriveTargets, sameTargets, type CatalogTarget } from './targets.js';

/** What the catalog derives from a spec: the spec packed, its environment names and targets. */
interface SpecParts {
  spec: HeldSpec;
  environments: readonly string[];
  targets: readonly CatalogTarget[];
}

/** Distinct lists of environment names remembered; past it, the pool starts afresh. */
const MAX_NAME_LISTS = 1024;
/** Lists of environment names longer than this (as JSON) are each Pipeline's own. */
const MAX_NAME_LIST_JSON = 1024;

/** Pipelines by id, with a reverse index from object key to the Pipelines referencing it. */
export class PipelineCatalog {
  /** A new object per upsert: its identity is the Pipeline's version (see head()). */
  private readonly entries = new Map<PipelineId, HeldPipeline>();
  /** objectKeyId -> the Pipelines with a target on that object. */
  private readonly reverse = new ReferrerIndex();
  private readonly strings = new StringTable();
  private readonly names = new FrozenPool(MAX_NAME_LISTS, MAX_NAME_LIST_JSON);
  private readonly specs = new RecentUnpacked<PipelineSpec>();
  private readonly statuses = new RecentUnpacked<PipelineStatus>();
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
   * catalog takes `pipeline` as its own: it keeps its metadata, its short strings replaced in
   * place by equal shared ones (share-strings.ts) and the server's bookkeeping it never reads
   * dropped (server-bookkeeping.ts); its spec and status are packed (packed.ts) and set to
   * undefined in it. At an unchanged `metadata.generation` its spec is not read at all: the one
   * already held stands (the API server moves the generation on every spec change), so the
   * spec held is always the one its targets were derived from.
   */
  upsert(pipeline: Pipeline): boolean {
    const { metadata, spec, status } = pipeline;
    dropServerBookkeeping(metadata);
    this.strings.share(metadata);
    // The watch's cache keeps the object (it compares only metadata): without its spec and
    // status, nothing parsed of either stays. Set to undefined, not deleted: a delete turns an
    // object into a dictionary.
    (pipeline as { spec?: unknown; status?: unknown }).spec = undefined;
    (pipeline as { status?: unknown }).status = undefined;
    const id = pipelineIdOf(pipeline);
    const previous = this.entries.get(id);
    // Most updates are status writes: at the same generation, the spec parts held stand.
    const sameSpec =
      previous !== undefined &&
      metadata.generation !== undefined &&
      previous.metadata.generation === metadata.generation;
    const parts: SpecParts = sameSpec
      ? { spec: previous.heldSpec, environments: previous.environments, targets: previous.targets }
      : this.specParts(metadata, spec);
    const unchanged = previous !== undefined && sameTargets(previous.targets, parts.targets);
    // Unchanged references keep the objects already indexed, so the new ones can be collected.
    const targets = unchanged ? previous.targets : parts.targets;
    const held = new HeldPipeline(metadata, parts.spec, {
      environments: parts.environments,
      targets,
      status: status === undefined ? undefined : pack(status),
      halts: status?.halts,
    });
    this.entries.set(id, held);
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
   * The Pipeline last upserted, or undefined: a new object of its metadata, spec and status,
   * the last two unpacked (10 to 20 microseconds each for six targets, see packed.ts) and
   * shared with other readers, never to be changed. Readers of metadata alone use head().
   */
  get(id: PipelineId): Pipeline | undefined {
    const held = this.entries.get(id);
    if (held === undefined) return undefined;
    const { apiVersion, kind, metadata, spec, packedStatus } = held;
    const pipeline: Pipeline = { apiVersion, kind, metadata, spec };
    if (packedStatus !== undefined) pipeline.status = this.statuses.unpack(packedStatus);
    return pipeline;
  }

  /**
   * The Pipeline last upserted without its status, or undefined; O(1). The same object until
   * the next upsert of this Pipeline, so it also serves as its version (e.g. a cache key). Its
   * metadata is at hand; its spec is unpacked on each read of `spec` (see HeldPipeline).
   */
  head(id: PipelineId): PipelineHead | undefined {
    return this.entries.get(id);
  }

  /** The names of the Pipeline's environments, in spec order, without unpacking its spec. */
  environments(id: PipelineId): readonly string[] | undefined {
    return this.entries.get(id)?.environments;
  }

  /** The distinct clusters the Pipelines' targets are on, by the gateway's names; unpacks nothing. */
  clusters(): Set<string> {
    const out = new Set<string>();
    for (const held of this.entries.values()) for (const t of held.targets) out.add(t.key.cluster);
    return out;
  }

  /** Every Pipeline without its status (see head()), in id order. */
  heads(): PipelineHead[] {
    return this.ids().flatMap((id) => {
      const held = this.entries.get(id);
      return held === undefined ? [] : [held];
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
    return [...this.entries.values()].map((held) => held.halts);
  }

  /**
   * Every indexed Pipeline whole, in id order: each spec and status unpacked (see get()), about
   * 0.2-0.3 s for 10,000 Pipelines, so for rare callers; heads() for metadata alone.
   */
  all(): Pipeline[] {
    return this.ids().flatMap((id) => {
      const pipeline = this.get(id);
      return pipeline === undefined ? [] : [pipeline];
    });
  }

  /**
   * Every Pipeline's targets, in the order the catalog holds Pipelines: an object several
   * Pipelines reference comes once for each. What a resync pass reads (see planScopes).
   */
  *allTargets(): Generator<CatalogTarget, void, undefined> {
    for (const held of this.entries.values()) yield* held.targets;
  }

  /** A new spec's parts: its strings shared, its targets derived, then packed. */
  private specParts(metadata: PipelineHead['metadata'], spec: PipelineSpec): SpecParts {
    this.strings.share(spec);
    const environments = this.names.one(spec.environments.map((env) => env.name));
    const targets = deriveTargets({ metadata, spec }, this.config, environments);
    return { spec: { packed: pack(spec), recent: this.specs }, environments, targets };
  }

  private tell(id: PipelineId): void {
    for (const listener of this.listeners) listener(id);
  }
}
