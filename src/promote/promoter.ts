/**
 * One promotion, start to end: claim the record, run the strategy once, record the outcome.
 * Nothing here loops around a strategy: a strategy runs only right after our own claim landed,
 * and an attempt whose outcome is lost is resolved by the evaluator's retry policy.
 */
import type { EnvironmentDecision, SharedPullRequest } from '../evaluate/decisions.js';
import type { StatusWriter } from '../kube/status-writer.js';
import type { Pipeline, PromotionRecord } from '../pipeline/pipeline-resource.js';
import { jsonEqual } from '../json/json-equal.js';
import { claimChange, claimRecord } from './claim.js';
import { outcomeChange } from './outcome.js';
import type { PromotionStrategy, StrategyResult } from './strategies/strategy.js';

/** Inputs of one promotion; `pipeline` is the object the decision was computed on. */
export interface ExecutePromotionArgs {
  status: Pick<StatusWriter, 'apply'>;
  pipeline: Pipeline;
  /** The evaluator's Promote decision for one environment. */
  decision: EnvironmentDecision;
  /** From strategyFor(); the caller skips the promotion when there is none. */
  strategy: PromotionStrategy;
  now: number;
  /** The clock read when the strategy returns (the history's finish time); `now` without. */
  clock?: () => number;
  instanceId: string;
}

/**
 * Promoted / Failed: the strategy ran and its outcome is stored in `pipeline`. Conflict: the
 * claim did not land (another replica claimed, or the inputs moved, or the status stayed
 * contended) and nothing ran. Gone: the Pipeline was deleted. Superseded: it ran, but another
 * replica has re-claimed since, so its record was left alone. Unrecorded: it ran, but the
 * outcome could not be written; the caller keeps it to write later (UnrecordedOutcomes), and
 * the claim timeout resolves it if this replica cannot. Unkept: the claim was written but the
 * stored object does not hold it as written (the installed CRD pruned it), and nothing ran: a
 * claim that is not kept would let the next check promote again.
 */
export type PromotionOutcome =
  | { outcome: 'Promoted'; pipeline: Pipeline; record: PromotionRecord; result: StrategyResult }
  | { outcome: 'Failed'; pipeline: Pipeline; record: PromotionRecord; result: StrategyResult }
  | { outcome: 'Conflict'; pipeline?: Pipeline }
  | { outcome: 'Unkept'; pipeline: Pipeline }
  | { outcome: 'Gone' }
  | { outcome: 'Superseded'; result: StrategyResult }
  | {
      outcome: 'Unrecorded';
      claim: PromotionRecord;
      result: StrategyResult;
      finishedAt: number;
      error?: unknown;
    };

/**
 * Claim, run, record. Rejects only when the claim write fails in an unclassified way (the
 * strategy has not run then); every failure after the strategy ran becomes a named outcome.
 */
export async function executePromotion(args: ExecutePromotionArgs): Promise<PromotionOutcome> {
  const claim = { ...args, attemptTimeoutMs: args.strategy.attemptTimeoutMs };
  // The API server's own answer: the claim counts only if the installed CRD kept it whole.
  const claimed = await args.status.apply(args.pipeline, claimChange(claim), 'stored');
  if (claimed.outcome === 'Gone') return claimed;
  if (claimed.outcome === 'Contended') return { outcome: 'Conflict' };
  if (claimed.outcome === 'Kept' || claimed.verdict !== 'Claimed') {
    return { outcome: 'Conflict', pipeline: claimed.pipeline };
  }
  const pipeline = claimed.pipeline;
  const record = pipeline.status?.environments?.[args.decision.environment]?.promotion;
  if (record === undefined || !jsonEqual(record, claimRecord(claim)))
    return { outcome: 'Unkept', pipeline };
  const { environment } = args.decision;
  const clock = args.clock ?? (() => args.now);
  // The attempt stops at its own bound, counted from the claim: its deadline's margin is left
  // for the outcome's write.
  const result = await runUntil(args.now + args.strategy.attemptTimeoutMs, clock, (signal) =>
    runOnce(args.strategy, {
      pipeline,
      environment,
      revision: record.revision,
      attempt: record.attempt ?? 1,
      ...(record.redelivery === undefined ? {} : { redelivery: record.redelivery }),
      ...(record.rollback === undefined ? {} : { rollback: { from: record.rollback.from } }),
      ...sharedOf(args.decision, record),
      signal,
    }),
  );
  const finishedAt = clock();
  try {
    const { change, record: outcome } = outcomeChange(environment, record, result, finishedAt);
    const recorded = await args.status.apply(pipeline, change);
    switch (recorded.outcome) {
      case 'Written':
        return {
          outcome: result.ok ? 'Promoted' : 'Failed',
          pipeline: recorded.pipeline,
          record: outcome,
          result,
        };
      case 'Kept':
        return { outcome: 'Superseded', result };
      case 'Gone':
        return { outcome: 'Gone' };
      case 'Contended':
        return { outcome: 'Unrecorded', claim: record, result, finishedAt };
    }
  } catch (error) {
    // The strategy already ran; retrying here would re-run it. Report and let the claim time out.
    return { outcome: 'Unrecorded', claim: record, result, finishedAt, error };
  }
}

/**
 * Runs `work` with a signal that aborts at `stopAt` (ms, by `clock`), its timer cleared when the
 * work is over (an AbortSignal.timeout's timer would stay armed for the whole bound).
 */
async function runUntil<T>(
  stopAt: number,
  clock: () => number,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(
    () => {
      controller.abort(new DOMException('The attempt reached its deadline.', 'TimeoutError'));
    },
    Math.max(0, stopAt - clock()),
  );
  try {
    return await work(controller.signal);
  } finally {
    clearTimeout(timer);
  }
}

/** Run the strategy once; an unexpected rejection becomes a retryable, secret-free failure. */
async function runOnce(
  strategy: PromotionStrategy,
  ctx: Parameters<PromotionStrategy['run']>[0],
): Promise<StrategyResult> {
  try {
    return await strategy.run(ctx);
  } catch {
    return {
      ok: false,
      reason: 'StrategyError',
      message: `the ${strategy.name} strategy failed unexpectedly`,
      retryable: true,
    };
  }
}

/** The decision's shared pull request, when it is for the claimed revision (a promotion). */
function sharedOf(
  decision: EnvironmentDecision,
  record: PromotionRecord,
): { sharedPullRequest?: SharedPullRequest } {
  const shared = decision.sharedPullRequest;
  if (shared === undefined || record.rollback !== undefined || record.redelivery !== undefined)
    return {};
  return decision.revision === record.revision ? { sharedPullRequest: shared } : {};
}
