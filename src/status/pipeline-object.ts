/**
 * Small helpers shared by the promote and status stages for moving a Pipeline through the
 * generic PipelineWriter, which speaks KubeObject.
 */
import type { KubeObject, PipelineWriter } from '../kube/types.js';
import type { Pipeline } from '../pipeline/types.js';

/** Kubernetes timestamps are RFC 3339 with second precision (metav1.Time): no milliseconds. */
export function rfc3339(now: number): string {
  return new Date(Math.floor(now / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The Pipeline as the writer's generic object type (a shallow copy; nothing is validated). */
export function toKubeObject(pipeline: Pipeline): KubeObject {
  return { ...pipeline };
}

/**
 * The stored object as a Pipeline. The writer returns what the API server stored for a
 * Pipeline we sent, so only the identifying fields are checked; anything else is a bug.
 */
export function asPipeline(object: KubeObject): Pipeline {
  const { apiVersion, kind, metadata } = object;
  if (
    apiVersion !== 'pipelines.weave.works/v1alpha1' ||
    kind !== 'Pipeline' ||
    typeof metadata.namespace !== 'string' ||
    typeof object.spec !== 'object' ||
    object.spec === null
  ) {
    throw new TypeError(
      `expected a namespaced pipelines.weave.works/v1alpha1 Pipeline, got ${kind}`,
    );
  }
  return object as unknown as Pipeline;
}

/**
 * A write without a resourceVersion would be unconditional in Kubernetes and could overwrite
 * another replica's claim, so every status write insists on one.
 */
export function requireResourceVersion(pipeline: Pipeline): string {
  const rv = pipeline.metadata.resourceVersion;
  if (rv === undefined || rv === '') {
    throw new TypeError(
      `Pipeline ${pipeline.metadata.namespace}/${pipeline.metadata.name} has no resourceVersion; status writes need one as precondition`,
    );
  }
  return rv;
}

/** Named results of one conditional status write. */
export type StatusWriteResult =
  { outcome: 'Written'; pipeline: Pipeline } | { outcome: 'Conflict' } | { outcome: 'Gone' };

/**
 * Replace the status of `pipeline` (its resourceVersion is the precondition). A thrown write
 * error is reported as Gone when a fresh GET finds the object deleted, and re-thrown otherwise.
 */
export async function replacePipelineStatus(
  writer: PipelineWriter,
  pipeline: Pipeline,
): Promise<StatusWriteResult> {
  requireResourceVersion(pipeline);
  try {
    const result = await writer.replaceStatus(toKubeObject(pipeline));
    if (result.conflict) return { outcome: 'Conflict' };
    return { outcome: 'Written', pipeline: asPipeline(result.value) };
  } catch (err) {
    if (await isGone(writer, pipeline)) return { outcome: 'Gone' };
    throw err;
  }
}

/** Whether the Pipeline no longer exists; a failing GET counts as "don't know" (false). */
async function isGone(writer: PipelineWriter, pipeline: Pipeline): Promise<boolean> {
  try {
    return (await writer.get(pipeline.metadata.namespace, pipeline.metadata.name)) === undefined;
  } catch {
    return false;
  }
}

/** Cuts text to `max` characters, marking the cut, so status and events stay bounded. */
export function truncate(text: string, max = 1024): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
