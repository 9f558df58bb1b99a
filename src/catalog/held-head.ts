/**
 * A Pipeline's head (its metadata and spec) as the catalog holds it: the metadata as the watch
 * gave it, the spec packed (packed.ts) and unpacked when read.
 *
 * Why: parsed, a spec whose targets are its own (every app with namespaces of its own) costs
 * about 100 bytes per target in small objects and lists; packed, about 15. The spec is read by a
 * check of its Pipeline, which unpacks its status too, and by little else: readers of metadata
 * alone (the notifier's selection, fleet halts by label) never unpack it.
 */
import type { PipelineHead, PipelineSpec } from '../pipeline/pipeline-resource.js';
import type { Packed, RecentUnpacked } from './packed.js';

const API_VERSION: PipelineHead['apiVersion'] = 'pipelines.weave.works/v1alpha1';
const KIND: PipelineHead['kind'] = 'Pipeline';

/**
 * A PipelineHead whose spec is unpacked on each read (from `recent` when unpacked lately): the
 * same spec object while it stays recent, never to be changed. Its own fields are its metadata
 * and packed spec; its JSON is the head's, `{apiVersion, kind, metadata, spec}`. Frozen.
 */
export class HeldHead implements PipelineHead {
  readonly metadata: PipelineHead['metadata'];
  readonly #spec: Packed<PipelineSpec>;
  readonly #recent: RecentUnpacked<PipelineSpec>;

  constructor(
    metadata: PipelineHead['metadata'],
    spec: Packed<PipelineSpec>,
    recent: RecentUnpacked<PipelineSpec>,
  ) {
    this.metadata = metadata;
    this.#spec = spec;
    this.#recent = recent;
    Object.freeze(this);
  }

  // Getters, not fields: the same for every head, so no field per Pipeline.
  get apiVersion(): PipelineHead['apiVersion'] {
    return API_VERSION;
  }

  get kind(): PipelineHead['kind'] {
    return KIND;
  }

  get spec(): PipelineSpec {
    return this.#recent.unpack(this.#spec);
  }

  /** A head of this spec with `metadata`: the packed spec is shared, not packed again. */
  withMetadata(metadata: PipelineHead['metadata']): HeldHead {
    return new HeldHead(metadata, this.#spec, this.#recent);
  }

  toJSON(): PipelineHead {
    const { apiVersion, kind, metadata, spec } = this;
    return { apiVersion, kind, metadata, spec };
  }
}
