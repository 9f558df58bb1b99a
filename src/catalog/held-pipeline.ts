/**
 * A Pipeline as the catalog holds it: its metadata as the watch gave it, its spec and status
 * packed (packed.ts), and what the catalog derived from its spec (its targets and environment
 * names), in one object per Pipeline version.
 *
 * Why: parsed, a spec whose targets are its own (every app with namespaces of its own) costs
 * about 100 bytes per target in small objects and lists; packed, about 15. The spec is read by a
 * check of its Pipeline, which unpacks its status too, and by little else: readers of metadata
 * alone (the notifier's selection, fleet halts by label) never unpack it. One object rather
 * than a head and a record beside it: at 8 bytes a field and 24 an object, 32 bytes less per
 * Pipeline.
 */
import type {
  HaltRecord,
  PipelineHead,
  PipelineSpec,
  PipelineStatus,
} from '../pipeline/pipeline-resource.js';
import type { Packed, RecentUnpacked } from './packed.js';
import type { CatalogTarget } from './targets.js';

/** A packed spec and where its recent unpacked copies are kept. */
export interface HeldSpec {
  readonly packed: Packed<PipelineSpec>;
  readonly recent: RecentUnpacked<PipelineSpec>;
}

/** What the catalog keeps beside the metadata and spec. */
export interface HeldParts {
  /** The environments' names in spec order: one shared list for Pipelines naming them alike. */
  readonly environments: readonly string[];
  readonly targets: readonly CatalogTarget[];
  /** The status, packed; undefined when it has none. */
  readonly status: Packed<PipelineStatus> | undefined;
  /** status.halts as given: the metrics count halts at every scrape without unpacking. */
  readonly halts: readonly HaltRecord[] | undefined;
}

const API_VERSION: PipelineHead['apiVersion'] = 'pipelines.weave.works/v1alpha1';
const KIND: PipelineHead['kind'] = 'Pipeline';

/**
 * A PipelineHead whose spec is unpacked on each read (from the recent ones when unpacked
 * lately): the same spec object while it stays recent, never to be changed. Its only own
 * enumerable field is its metadata (the rest is private, read through getters), and its JSON
 * is the head's, `{apiVersion, kind, metadata, spec}`. Frozen.
 */
export class HeldPipeline implements PipelineHead {
  readonly metadata: PipelineHead['metadata'];
  readonly #spec: Packed<PipelineSpec>;
  readonly #recent: RecentUnpacked<PipelineSpec>;
  readonly #environments: readonly string[];
  readonly #targets: readonly CatalogTarget[];
  readonly #status: Packed<PipelineStatus> | undefined;
  readonly #halts: readonly HaltRecord[] | undefined;

  constructor(metadata: PipelineHead['metadata'], spec: HeldSpec, parts: HeldParts) {
    this.metadata = metadata;
    this.#spec = spec.packed;
    this.#recent = spec.recent;
    this.#environments = parts.environments;
    this.#targets = parts.targets;
    this.#status = parts.status;
    this.#halts = parts.halts;
    Object.freeze(this);
  }

  // Getters, not fields: the same for every Pipeline, so no field per Pipeline.
  get apiVersion(): PipelineHead['apiVersion'] {
    return API_VERSION;
  }

  get kind(): PipelineHead['kind'] {
    return KIND;
  }

  get spec(): PipelineSpec {
    return this.#recent.unpack(this.#spec);
  }

  /** The packed spec, for the next version of this Pipeline at the same generation. */
  get heldSpec(): HeldSpec {
    return { packed: this.#spec, recent: this.#recent };
  }

  get environments(): readonly string[] {
    return this.#environments;
  }

  get targets(): readonly CatalogTarget[] {
    return this.#targets;
  }

  get packedStatus(): Packed<PipelineStatus> | undefined {
    return this.#status;
  }

  get halts(): readonly HaltRecord[] | undefined {
    return this.#halts;
  }

  toJSON(): PipelineHead {
    const { apiVersion, kind, metadata, spec } = this;
    return { apiVersion, kind, metadata, spec };
  }
}
