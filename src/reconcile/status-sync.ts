import type { PipelineWriter } from '../kube/types.js';
import type { GatewayLogger } from '../log.js';
import { pipelineIdOf } from '../pipeline/id.js';
import { readPipeline } from '../pipeline/status-write.js';
import { computeStatus } from '../status/pipeline-status.js';
import type { StatusInputs } from '../status/status-queue.js';
import { writeStatusIfChanged } from '../status/writer.js';

/** What a status sync needs. */
export interface StatusSyncDeps {
  writer: PipelineWriter;
  logger: GatewayLogger;
  now: () => number;
}

/**
 * Writes the computed status when it differs from the stored one. On a conflict it re-reads
 * the Pipeline once and tries again; a second conflict is left to the next check.
 */
export async function syncStatus(deps: StatusSyncDeps, inputs: StatusInputs): Promise<void> {
  const { pipeline, targets, evaluation } = inputs;
  let current = pipeline;
  for (let attempt = 0; attempt < 2; attempt++) {
    const status = computeStatus({ pipeline: current, targets, evaluation, now: deps.now() });
    const result = await writeStatusIfChanged(deps.writer, current, status);
    if (result.outcome !== 'Conflict') return;
    const fresh = await readPipeline(deps.writer, current);
    if (fresh === undefined) return;
    current = fresh;
  }
  deps.logger.debug(
    { pipeline: pipelineIdOf(pipeline) },
    'status write conflicted twice; the next check writes it',
  );
}
