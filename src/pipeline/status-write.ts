/**
 * The one way the gateway writes a Pipeline's status: a conditional replace through the
 * PipelineWriter port, with the object's resourceVersion as precondition, and named results.
 * The claim, the outcome record and the status writer all go through it.
 */
import type { PipelineWriter } from '../kube/types.js';
import type { Pipeline } from './types.js';
import { asPipeline } from './validate.js';

/** Named results of one conditional status write. */
export type StatusWriteResult =
  { outcome: 'Written'; pipeline: Pipeline } | { outcome: 'Conflict' } | { outcome: 'Gone' };

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
    const result = await writer.replaceStatus({ ...pipeline });
    if (result.conflict) return { outcome: 'Conflict' };
    return { outcome: 'Written', pipeline: asPipeline(result.value) };
  } catch (err) {
    if (await isGone(writer, pipeline)) return { outcome: 'Gone' };
    throw err;
  }
}

/** A fresh read of the Pipeline (never a cache); undefined when it no longer exists. */
export async function readPipeline(
  writer: PipelineWriter,
  pipeline: Pipeline,
): Promise<Pipeline | undefined> {
  const fresh = await writer.get(pipeline.metadata.namespace, pipeline.metadata.name);
  return fresh === undefined ? undefined : asPipeline(fresh);
}

/** Whether the Pipeline no longer exists; a failing GET counts as "don't know" (false). */
async function isGone(writer: PipelineWriter, pipeline: Pipeline): Promise<boolean> {
  try {
    return (await writer.get(pipeline.metadata.namespace, pipeline.metadata.name)) === undefined;
  } catch {
    return false;
  }
}
