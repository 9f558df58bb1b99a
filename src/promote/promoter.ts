/**
 * One promotion, start to end: claim the record, run the strategy once, record the outcome.
 * Nothing here loops around a strategy: a strategy runs only right after our own claim landed,
 * and an attempt whose outcome is lost is resolved by the evaluator's retry policy.
 */
import type { EnvironmentDecision } from '../evaluate/types.js';
import type { PipelineWriter } from '../kube/types.js';
import type { Pipeline, PromotionRecord } from '../pipeline/types.js';
import { claimPromotion } from './claim.js';
import { recordOutcome } from './outcome.js';
import type { PromotionStrategy, StrategyResult } from './strategies/types.js';

/** Inputs of one promotion; `pipeline` as read (its resourceVersion guards the claim). */
export interface ExecutePromotionArgs {
  writer: PipelineWriter;
  pipeline: Pipeline;
  /** The evaluator's Promote decision for one environment. */
  decision: EnvironmentDecision;
  /** From strategyFor(); the caller skips the promotion when there is none. */
  strategy: PromotionStrategy;
  now: number;
  instanceId: string;
  /** Conflict re-reads allowed while recording the outcome (default 3). */
  maxConflictRetries?: number;
}

/**
 * Promoted / Failed: the strategy ran and its outcome is stored in `pipeline`. Conflict / Gone:
 * the claim did not land and nothing ran. Superseded: it ran, but another replica has re-claimed
 * since, so its record was left alone. Unrecorded: it ran, but the outcome could not be written.
 */
export type PromotionOutcome =
  | { outcome: 'Promoted'; pipeline: Pipeline; record: PromotionRecord; result: StrategyResult }
  | { outcome: 'Failed'; pipeline: Pipeline; record: PromotionRecord; result: StrategyResult }
  | { outcome: 'Conflict' }
  | { outcome: 'Gone' }
  | { outcome: 'Superseded'; result: StrategyResult }
  | { outcome: 'Unrecorded'; result: StrategyResult; error?: unknown };

/**
 * Claim, run, record. Rejects only when the claim write fails in an unclassified way (the
 * strategy has not run then); every failure after the strategy ran becomes a named outcome.
 */
export async function executePromotion(args: ExecutePromotionArgs): Promise<PromotionOutcome> {
  const claim = await claimPromotion(args);
  if (claim.outcome !== 'Claimed') return claim;

  const { environment } = args.decision;
  const result = await runOnce(args.strategy, {
    pipeline: claim.pipeline,
    environment,
    revision: claim.record.revision,
    attempt: claim.record.attempt ?? 1,
  });

  try {
    const recorded = await recordOutcome({
      writer: args.writer,
      pipeline: claim.pipeline,
      environment,
      claim: claim.record,
      result,
      ...(args.maxConflictRetries === undefined
        ? {}
        : { maxConflictRetries: args.maxConflictRetries }),
    });
    switch (recorded.outcome) {
      case 'Recorded':
        return {
          outcome: result.ok ? 'Promoted' : 'Failed',
          pipeline: recorded.pipeline,
          record: recorded.record,
          result,
        };
      case 'Superseded':
        return { outcome: 'Superseded', result };
      case 'Gone':
        return { outcome: 'Gone' };
      case 'Unrecorded':
        return { outcome: 'Unrecorded', result };
    }
  } catch (error) {
    // The strategy already ran; retrying here would re-run it. Report and let the claim time out.
    return { outcome: 'Unrecorded', result, error };
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
