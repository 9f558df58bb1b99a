/**
 * Before a gated promotion runs, the approvals bound to a preview digest are checked against
 * the change as it is now: the preview is made again (which the evaluator's input then holds)
 * and the decision re-evaluated. A base branch that moved since the approval, or a change that
 * cannot be known now, holds the promotion; approvals without a digest need none of this.
 */
import type { CatalogTarget } from '../catalog/targets.js';
import type { EnvironmentDecision } from '../evaluate/decisions.js';
import { promotions } from '../evaluate/evaluate.js';
import { statusesFor } from '../evaluation/evaluation-input.js';
import type { PipelineEvaluator } from '../evaluation/pipeline-evaluator.js';
import type { Pipeline } from '../pipeline/pipeline-resource.js';
import type { Preview } from '../preview/previewer.js';
import type { VerifiedTargets } from '../verify/verified-targets.js';

/** The preview of promoting a revision now (src/preview's PipelinePreviews.at). */
export interface PreviewsAt {
  at(
    pipeline: Pipeline,
    environment: string,
    pending: { revision: string; attempt: number; redelivery?: number },
  ): Promise<Preview>;
}

/** What the check needs from the promotion pass. */
interface CheckDeps {
  previews?: PreviewsAt | undefined;
  evaluator: Pick<PipelineEvaluator, 'evaluate'>;
  verified: Pick<VerifiedTargets, 'status'>;
}

/**
 * Whether `decision` still promotes once the change is previewed again: 'yes' at once when no
 * recorded approval of its revision is bound to a digest; 'unknown' when the change cannot be
 * known now (the promotion waits, and the Pipeline is looked at again soon).
 */
export async function stillApproved(
  deps: CheckDeps,
  pipeline: Pipeline,
  targets: readonly CatalogTarget[],
  decision: EnvironmentDecision,
): Promise<'yes' | 'no' | 'unknown'> {
  const { environment, revision } = decision;
  // A rollback is authorized by its own quorum, never by a promotion's approvals.
  if (deps.previews === undefined || revision === undefined || decision.outcome !== 'Promote')
    return 'yes';
  const approvals = pipeline.status?.environments?.[environment]?.approvals ?? [];
  if (!approvals.some((a) => a.revision === revision && a.previewDigest !== undefined))
    return 'yes';
  const pending = {
    revision,
    attempt: decision.attempt ?? 1,
    ...(decision.redelivery === undefined ? {} : { redelivery: decision.redelivery }),
  };
  const preview = await deps.previews.at(pipeline, environment, pending);
  // A change that cannot be known now cannot be the one approved.
  if (preview.change.kind === 'unavailable') return 'unknown';
  const evaluation = deps.evaluator.evaluate(
    pipeline,
    statusesFor(deps.verified, pipeline, targets),
  );
  const still = promotions(evaluation).some(
    (d) => d.environment === environment && d.revision === revision && d.outcome === 'Promote',
  );
  return still ? 'yes' : 'no';
}
