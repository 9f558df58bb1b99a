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
import type { StatusViewWriter } from './status-queue.js';
import { viewChange, type TargetPlace, type ViewInputs } from './view-change.js';
import type { PendingWait, WaitPreviews } from './wait-previews.js';

/** What a view is computed from when its write starts (evaluation/view-inputs.ts). */
export interface ViewInputsSource {
  /**
   * The view's inputs from the latest reads, on `newer` (else the catalog's latest); undefined
   * when the Pipeline is no longer loaded or its spec moved on past `newer`.
   */
  viewInputs(id: PipelineId, newer?: Pipeline): ViewInputs | undefined;
}

/** The evaluation a view is decided again with (evaluation/pipeline-evaluator.ts). */
export interface ViewEvaluator {
  /** The evaluator on a Pipeline's stored records and these statuses. */
  evaluate(pipeline: Pipeline, targets: Record<string, TargetStatus[]>): Evaluation;
}

/** Reading again what a stored status shows newer than our reads (status/stale-reads.ts). */
export interface StaleReads {
  /** Reads these targets of the Pipeline again, then re-checks it. */
  reread(id: PipelineId, targets: readonly TargetPlace[]): void;
}

/** What publishing a view needs. */
export interface ViewSyncDeps {
  status: Pick<StatusWriter, 'apply'>;
  logger: GatewayLogger;
  now: () => number;
  /** The one evaluator (see evaluation/pipeline-evaluator.ts). */
  evaluator: ViewEvaluator;
  /** Targets whose stored record is newer than our read are read again through these. */
  rereads: StaleReads;
  /** The previews waits for an approval are recorded with; absent, waits are recorded without. */
  previews?: Pick<WaitPreviews, 'previewsOf'>;
}

/** The status queue's writer (StatusViewWriter): the view of a Pipeline, computed and written. */
export class ViewSync implements StatusViewWriter {
  constructor(
    private readonly deps: ViewSyncDeps,
    private readonly inputs: ViewInputsSource,
  ) {}

  /** Computes the view from the latest reads when the write starts, and writes it. */
  write(id: PipelineId, newer: Pipeline | undefined): Promise<void> {
    return syncView(this.deps, this.inputs.viewInputs(id, newer));
  }
}

/**
 * Writes the view of `inputs` when it differs from the stored status and is not older; no
 * inputs (the Pipeline is gone or its spec moved on, see ViewInputsSource) write nothing.
 */
async function syncView(deps: ViewSyncDeps, inputs: ViewInputs | undefined): Promise<void> {
  if (inputs === undefined) return;
  const reevaluate = (pipeline: Pipeline, targets: Record<string, TargetStatus[]>) =>
    deps.evaluator.evaluate(pipeline, targets);
  // The view's time is its reads' and decisions': a wait begins now, not when its preview came.
  const now = deps.now();
  const previews = await previewsFor(deps, inputs);
  const change = viewChange(inputs, { now, reevaluate, previews });
  const result = await deps.status.apply(inputs.pipeline, change);
  const id = pipelineIdOf(inputs.pipeline);
  if (result.outcome === 'Kept' && result.verdict.kind === 'Stale') {
    deps.logger.debug(
      { pipeline: id, targets: result.verdict.targets },
      'stored status is newer than our reads; reading again',
    );
    deps.rereads.reread(id, result.verdict.targets);
  } else if (result.outcome === 'Contended') {
    deps.logger.debug({ pipeline: id }, 'status write stayed contended; the next check writes it');
  }
}

/**
 * The previews of the waits for an approval this view finds that the stored status does not
 * hold a preview of yet: a wait beginning (waited for, bounded) or one recorded without (only
 * if known by now); none asked otherwise.
 */
async function previewsFor(
  deps: ViewSyncDeps,
  inputs: ViewInputs,
): Promise<Awaited<ReturnType<WaitPreviews['previewsOf']>> | undefined> {
  if (deps.previews === undefined) return undefined;
  const stored = inputs.pipeline.status?.environments;
  const waits: (PendingWait & { known: boolean })[] = [];
  for (const d of inputs.evaluation.decisions) {
    if (d.outcome !== 'WaitingApproval' || d.revision === undefined) continue;
    const recorded = stored?.[d.environment]?.waitingApproval;
    if (recorded?.revision === d.revision && recorded.preview !== undefined) continue;
    // Only the write that begins the wait waits for the preview; later ones take it if known.
    const known = recorded?.revision === d.revision;
    waits.push({
      environment: d.environment,
      revision: d.revision,
      attempt: d.attempt ?? 1,
      known,
    });
  }
  return waits.length === 0 ? undefined : deps.previews.previewsOf(inputs.pipeline, waits);
}
