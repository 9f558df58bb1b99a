/**
 * Publishing a check's verified view in the Pipeline status, through the one status writer.
 * What the view change refuses is acted on here: a stored record newer than our reads makes us
 * read those targets again (as a hint would), so a replica that missed an event catches up
 * instead of writing its older view back; the hint queue spaces those reads.
 */
import type { Evaluation, TargetStatus } from '../evaluate/decisions.js';
import type { StatusWriter } from '../kube/status-writer.js';
import type { GatewayLogger } from '../log.js';
import { pipelineIdOf, type PipelineId } from '../pipeline/id.js';
import type { Pipeline } from '../pipeline/pipeline-resource.js';
import { viewChange, type TargetPlace, type ViewInputs } from './view-change.js';

/** What publishing a view needs. */
export interface ViewSyncDeps {
  status: Pick<StatusWriter, 'apply'>;
  logger: GatewayLogger;
  now: () => number;
  /** The pure evaluator on a Pipeline's stored records (see evaluation/evaluation-input.ts). */
  evaluate: (pipeline: Pipeline, targets: Record<string, TargetStatus[]>) => Evaluation;
  /** Reads these targets of the Pipeline again, then re-checks it. */
  reread: (id: PipelineId, targets: readonly TargetPlace[]) => void;
}

/**
 * Writes the view of `inputs` when it differs from the stored status and is not older; no
 * inputs (the Pipeline is gone or its spec moved on, see Reconciler.viewInputs) write nothing.
 */
export async function syncView(deps: ViewSyncDeps, inputs: ViewInputs | undefined): Promise<void> {
  if (inputs === undefined) return;
  const change = viewChange(inputs, { now: deps.now(), reevaluate: deps.evaluate });
  const result = await deps.status.apply(inputs.pipeline, change);
  const id = pipelineIdOf(inputs.pipeline);
  if (result.outcome === 'Kept' && result.verdict.kind === 'Stale') {
    deps.logger.debug(
      { pipeline: id, targets: result.verdict.targets },
      'stored status is newer than our reads; reading again',
    );
    deps.reread(id, result.verdict.targets);
  } else if (result.outcome === 'Contended') {
    deps.logger.debug({ pipeline: id }, 'status write stayed contended; the next check writes it');
  }
}
