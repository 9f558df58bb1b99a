import type { CatalogTarget } from '../catalog/targets.js';
import { promotions } from '../evaluate/evaluate.js';
import type { EnvironmentDecision, RetryPolicy, TargetStatus } from '../evaluate/decisions.js';
import type { StatusWriter } from '../kube/status-writer.js';
import type { GatewayLogger } from '../log.js';
import { pipelineIdOf, type PipelineId } from '../pipeline/id.js';
import { parseTimestamp } from '../time/kube-time.js';
import type { Pipeline } from '../pipeline/pipeline-resource.js';
import { executePromotion, type PromotionOutcome } from '../promote/promoter.js';
import type { ShadowHold } from '../evaluate/decisions.js';
import type { UnrecordedOutcomes } from '../promote/unrecorded-outcomes.js';
import type { PromotionStrategy } from '../promote/strategies/strategy.js';
import type { VerifiedTargets } from '../verify/verified-targets.js';
import { statusesFor, type PipelineEvaluation } from '../evaluation/evaluation-input.js';
import type { PipelineEvaluator } from '../evaluation/pipeline-evaluator.js';
import { stillApproved, type PreviewsAt } from './preview-check.js';

/**
 * Where a pass's confirmation round (confirmation-round.ts) left a Pipeline's mark: the oldest
 * read time that counts as current for its promotions; taken by the Pipeline's next check.
 */
export interface ConfirmationMarks {
  take(id: PipelineId): number | undefined;
}

/** What promoting needs besides the evaluation. */
export interface PromotionDeps {
  /** The one writer of the Pipeline status, and its fresh reads. */
  status: Pick<StatusWriter, 'apply' | 'read'>;
  verified: VerifiedTargets;
  policy: RetryPolicy;
  /** The one evaluation, so each promotion is decided on the same input as every check. */
  evaluator: Pick<PipelineEvaluator, 'evaluate'>;
  instanceId: string;
  logger: GatewayLogger;
  now: () => number;
  freshnessMs: number;
  /** The strategy for promotions to an environment; undefined = the Pipeline only tracks. */
  strategyFor: (pipeline: Pipeline, environment: string) => PromotionStrategy | undefined;
  /** Keeps outcomes whose write failed, for the next checks to write (never a re-run). */
  unrecorded?: Pick<UnrecordedOutcomes, 'remember'>;
  /** Reports each promotion outcome (metrics). */
  onOutcome?: (outcome: PromotionOutcome['outcome']) => void;
  /** Reports a successful promotion's lead time from its upstream's verification (metrics). */
  onLeadTime?: (seconds: number) => void;
  /** Told the environment of each promotion that succeeded (its per-environment count). */
  onPromoted?: (environment: string) => void;
  /** Reports what shadow gates would have held of a promotion whose strategy ran (metrics). */
  onShadowHolds?: (holds: readonly ShadowHold[]) => void;
  /** Told when a claim was written but not kept (the installed CRD pruned it): check the CRD. */
  onUnkeptClaim?: () => void;
  /** The marks of the pass's confirmation round; absent = every confirmation reads itself. */
  confirmations?: ConfirmationMarks;
  /** The change a promotion would make now: approvals bound to a preview are checked on it. */
  previews?: PreviewsAt;
  /**
   * Makes what this replica knows of release trains current before a promotion is confirmed
   * (wiring/trains.ts): a member must meet its train's gate as the train stands now.
   */
  trainsCurrent?: (pipeline: Pipeline) => Promise<void>;
}

/** What a promotion pass ended with. */
export interface PromotionPass {
  /** The evaluation to publish: recomputed after any promotion, so records show in it. */
  evaluation: PipelineEvaluation;
  /** The newest stored Pipeline seen, when the pass read or wrote it. */
  pipeline?: Pipeline;
  conflicts: number;
  /** Re-check soon: a claim conflicted, the spec moved under us, or a change could not be previewed. */
  retry: boolean;
}

/**
 * Runs the evaluation's Promote decisions, but only after confirming them on current state:
 * the targets they depend on (source, destination and every environment upstream) not read
 * within `freshnessMs`, or since the pass's confirmation round found them due, are read again,
 * the Pipeline is fetched fresh from the API server, and the evaluation is repeated on both.
 * Each surviving decision is claimed with the fresh resourceVersion before its strategy runs.
 */
export async function promoteAll(
  deps: PromotionDeps,
  pipeline: Pipeline,
  targets: readonly CatalogTarget[],
  evaluation: PipelineEvaluation,
): Promise<PromotionPass> {
  // Taken on every check, so that a round's mark never outlives the check it was made for.
  const confirmedSince = deps.confirmations?.take(pipelineIdOf(pipeline));
  const wanted = promotions(evaluation);
  if (wanted.length === 0) return { evaluation, conflicts: 0, retry: false };
  await confirmInputs(deps, pipeline, targets, wanted, confirmedSince);
  await deps.trainsCurrent?.(pipeline);
  const fetched = await deps.status.read(pipeline.metadata);
  if (fetched === undefined) return { evaluation, conflicts: 0, retry: false };
  let current = fetched;
  if (current.metadata.generation !== pipeline.metadata.generation) {
    // The spec moved; the index catches up from the watch and re-checks this pipeline then.
    return { evaluation, pipeline: current, conflicts: 0, retry: true };
  }
  await rereadBehindRecords(deps, current, targets, wanted);
  let conflicts = 0;
  let changeUnknown = false;
  const attempted = new Set<string>();
  // Each promotion is decided on the object the previous one left: a decision made before
  // another environment's claim and outcome were written would claim on an old view of them.
  for (;;) {
    const decision = promotions(
      evaluateOn(deps, current, statusesFor(deps.verified, current, targets)),
    ).find((d) => !attempted.has(d.environment));
    if (decision === undefined) break;
    attempted.add(decision.environment);
    const strategy = deps.strategyFor(current, decision.environment);
    if (strategy === undefined) continue;
    const approved = await stillApproved(deps, current, targets, decision);
    changeUnknown ||= approved === 'unknown';
    if (approved !== 'yes') continue;
    const outcome = await executePromotion({
      status: deps.status,
      pipeline: current,
      decision,
      strategy,
      now: deps.now(),
      clock: deps.now,
      instanceId: deps.instanceId,
    });
    noteOutcome(deps, current, decision, outcome);
    if (outcome.outcome === 'Conflict') conflicts += 1;
    if (outcome.outcome === 'Gone') return { evaluation, conflicts, retry: false };
    if ('pipeline' in outcome && outcome.pipeline !== undefined) current = outcome.pipeline;
    if (outcome.outcome === 'Conflict' || outcome.outcome === 'Unkept') break;
  }
  const final = evaluateOn(deps, current, statusesFor(deps.verified, current, targets));
  // A change that could not be previewed is looked at again soon, as a conflict is.
  return { evaluation: final, pipeline: current, conflicts, retry: conflicts > 0 || changeUnknown };
}

/** The outcomes of a promotion whose strategy ran (after its claim was kept). */
const RAN: ReadonlySet<PromotionOutcome['outcome']> = new Set([
  'Promoted',
  'Failed',
  'Superseded',
  'Unrecorded',
]);

/** Logs and counts an outcome, and keeps one whose write failed for the next checks. */
function noteOutcome(
  deps: PromotionDeps,
  pipeline: Pipeline,
  decision: EnvironmentDecision,
  outcome: PromotionOutcome,
): void {
  deps.onOutcome?.(outcome.outcome);
  if (outcome.outcome === 'Promoted') deps.onPromoted?.(decision.environment);
  if (outcome.outcome === 'Promoted' && decision.upstreamVerifiedAt !== undefined)
    deps.onLeadTime?.(Math.max(0, deps.now() - decision.upstreamVerifiedAt) / 1000);
  // Counted once per promotion that ran: a shadow gate's record of what it would have held.
  if (decision.wouldHold !== undefined && RAN.has(outcome.outcome))
    deps.onShadowHolds?.(decision.wouldHold);
  logOutcome(deps.logger, pipeline, decision, outcome);
  if (outcome.outcome === 'Unrecorded') {
    const { claim, result, finishedAt } = outcome;
    deps.unrecorded?.remember(pipelineIdOf(pipeline), {
      environment: decision.environment,
      claim,
      result,
      finishedAt,
    });
  }
  if (outcome.outcome === 'Unkept') deps.onUnkeptClaim?.();
}

/**
 * Another replica's claim made after our reads was decided on reads newer than ours: those of
 * the environments this decision depends on are read again before deciding, so a replica that
 * missed a rollout never promotes the revision it last saw over the one just claimed.
 * Record times have second precision, so reads within the claim's second count as older.
 */
async function rereadBehindRecords(
  deps: PromotionDeps,
  pipeline: Pipeline,
  targets: readonly CatalogTarget[],
  wanted: readonly EnvironmentDecision[],
): Promise<void> {
  const dependedOn = dependedOnEnvironments(pipeline, wanted);
  const times = [...dependedOn].map((env) =>
    parseTimestamp(pipeline.status?.environments?.[env]?.promotion?.lastAttemptedTime),
  );
  const newest = Math.max(...times.map((t) => t ?? -Infinity));
  if (!Number.isFinite(newest)) return;
  const behind = readsWhere(deps, targets, dependedOn, (readAt) => readAt < newest + 1000);
  if (behind.length > 0) await deps.verified.reread(behind);
}

/** The targets of `environments` never read, or whose last read `stale` says is too old. */
function readsWhere(
  deps: PromotionDeps,
  targets: readonly CatalogTarget[],
  environments: ReadonlySet<string>,
  stale: (readAt: number) => boolean,
): CatalogTarget[] {
  return targets.filter((t) => {
    if (!environments.has(t.environment)) return false;
    const readAt = deps.verified.readAt(t);
    return readAt === undefined || stale(readAt);
  });
}

/** The environments a decision rests on: its own and every one upstream of it. */
export function dependedOnEnvironments(
  pipeline: Pipeline,
  wanted: readonly EnvironmentDecision[],
): Set<string> {
  const envNames = pipeline.spec.environments.map((e) => e.name);
  const furthest = Math.max(...wanted.map((d) => envNames.indexOf(d.environment)));
  return new Set(envNames.slice(0, furthest + 1));
}

async function confirmInputs(
  deps: PromotionDeps,
  pipeline: Pipeline,
  targets: readonly CatalogTarget[],
  wanted: readonly EnvironmentDecision[],
  confirmedSince: number | undefined,
): Promise<void> {
  // A decision depends on its source, on its own targets (already there? readable?) and on every
  // environment upstream (an Unknown one blocks it), so all of those must be current: a stale
  // read of an unreachable target must not promote what a resync now would not.
  // A round's reads were made after it found the decision due: current for this check.
  const dependedOn = dependedOnEnvironments(pipeline, wanted);
  const since = confirmedSince ?? deps.now() - deps.freshnessMs;
  const stale = readsWhere(deps, targets, dependedOn, (readAt) => readAt < since);
  await deps.verified.reread(stale);
}

function evaluateOn(
  deps: PromotionDeps,
  pipeline: Pipeline,
  targets: Record<string, TargetStatus[]>,
): PipelineEvaluation {
  return deps.evaluator.evaluate(pipeline, targets);
}

function logOutcome(
  logger: GatewayLogger,
  pipeline: Pipeline,
  decision: EnvironmentDecision,
  outcome: PromotionOutcome,
): void {
  // A rollback is a promotion to an earlier revision: its lines say so, and from what.
  const rollback = decision.rollback;
  const fields = {
    pipeline: pipelineIdOf(pipeline),
    environment: decision.environment,
    revision: decision.revision,
    attempt: decision.attempt,
    outcome: outcome.outcome,
    ...(rollback === undefined ? {} : { rollbackFrom: rollback.from }),
  };
  const what = rollback === undefined ? 'promotion' : 'rollback';
  if (outcome.outcome === 'Promoted') logger.info(fields, `${what} succeeded`);
  else if (outcome.outcome === 'Conflict')
    logger.info(fields, 'promotion claimed by another replica');
  else if (outcome.outcome === 'Unkept')
    logger.error(
      fields,
      'the claim was not kept (the installed Pipeline CRD pruned it): nothing ran, and the CRD is checked now',
    );
  else
    logger.warn(
      { ...fields, message: 'result' in outcome ? outcome.result.message : undefined },
      `${what} did not succeed`,
    );
}
