/**
 * The Pipelines that may be waiting on the management API: when it answers again after failing,
 * these are checked at once instead of on whatever backoff or timer they were left with.
 */
import { recordState } from '../evaluate/retry.js';
import type { EnvironmentDecision, EnvironmentOutcome } from '../evaluate/decisions.js';
import { pipelineIdOf, type PipelineId } from '../pipeline/id.js';
import type { Pipeline } from '../pipeline/pipeline-resource.js';

/** What pendingPipelines reads of a view: its latest decisions. */
interface Decided {
  readonly decisions: readonly EnvironmentDecision[];
}

/** Outcomes that a coming check acts on: a promotion to run, or a wait that may be over. */
const PENDING_OUTCOMES: ReadonlySet<EnvironmentOutcome> = new Set([
  'Promote',
  'RollBack',
  'Waiting',
]);

/**
 * Ids, in the order of `pipelines`, of those with a Claimed promotion record in their status
 * (an outcome may never have been written) or whose latest evaluation in `views` promotes or waits.
 */
export function pendingPipelines(
  pipelines: readonly Pipeline[],
  views: ReadonlyMap<PipelineId, Decided>,
): PipelineId[] {
  return pipelines
    .filter((p) => hasClaim(p) || decidesPending(views.get(pipelineIdOf(p))))
    .map(pipelineIdOf);
}

function hasClaim(pipeline: Pipeline): boolean {
  const environments = Object.values(pipeline.status?.environments ?? {});
  return environments.some(
    (e) => e.promotion !== undefined && recordState(e.promotion) === 'Claimed',
  );
}

function decidesPending(view: Decided | undefined): boolean {
  return view?.decisions.some((d) => PENDING_OUTCOMES.has(d.outcome)) ?? false;
}
