/**
 * A Pipeline's identity. Everything past the watch passes a PipelineId around instead of a
 * (namespace, name) pair; it is built and split only here.
 */
import { flatten } from '../text/text.js';

/** Namespace and name of a Pipeline. */
export interface PipelineRef {
  readonly namespace: string;
  readonly name: string;
}

/** `namespace/name` of a Pipeline; only pipelineId() and parsePipelineId() make one. */
export type PipelineId = string & { readonly __pipelineId: unique symbol };

/**
 * The id of the Pipeline `ref` names, as one flat string: ids are kept as map keys for the life
 * of a Pipeline (the catalog, the views, the queues), and a joined string left as its parts
 * costs 32 bytes more each (see flatten).
 */
export function pipelineId(ref: PipelineRef): PipelineId {
  return flatten(`${ref.namespace}/${ref.name}`) as PipelineId;
}

/** The id of a Pipeline object, from its metadata. */
export function pipelineIdOf(pipeline: { metadata: PipelineRef }): PipelineId {
  return pipelineId(pipeline.metadata);
}

/** The id in `text` when it is exactly `namespace/name` (both non-empty, one slash). */
export function parsePipelineId(text: string): PipelineId | undefined {
  const slash = text.indexOf('/');
  if (slash <= 0 || slash === text.length - 1 || text.includes('/', slash + 1)) return undefined;
  return text as PipelineId;
}

/** The namespace and name an id stands for. */
export function pipelineRef(id: PipelineId): PipelineRef {
  const slash = id.indexOf('/');
  return { namespace: id.slice(0, slash), name: id.slice(slash + 1) };
}
