/**
 * Recording a promotion's outcome after its strategy ran. The outcome replaces our own Claimed
 * record only: if another replica has since re-claimed the environment, its record wins.
 */
import type { StatusChange } from '../kube/status-writer.js';
import { truncate } from '../text/text.js';
import { rfc3339 } from '../time/kube-time.js';
import type { PromotionRecord } from '../pipeline/pipeline-resource.js';
import { withPromotion } from './claim.js';
import type { StrategyResult } from './strategies/strategy.js';

/** Longest message stored in a promotion record. */
export const MaxRecordMessage = 1024;

/** Recorded: the outcome replaced our claim. Superseded: the stored record is no longer it. */
export type OutcomeVerdict = 'Recorded' | 'Superseded';

/**
 * The outcome as a status change: it replaces our own Claimed record (same revision, attempt,
 * claimant and time) and nothing else; if another replica has re-claimed the environment since,
 * its record wins and nothing is written. `finishedAt` (ms) is when the strategy returned, which
 * the environment's history keeps.
 */
export function outcomeChange(
  environment: string,
  claim: PromotionRecord,
  result: StrategyResult,
  finishedAt: number,
): { change: StatusChange<OutcomeVerdict>; record: PromotionRecord } {
  const record = outcomeRecord(claim, result);
  const change: StatusChange<OutcomeVerdict> = (stored) => {
    const current = stored.status?.environments?.[environment]?.promotion;
    if (!isSameClaim(current, claim) && !isAbandoned(current, claim)) {
      return { keep: 'Superseded' };
    }
    return {
      write: withPromotion(stored.status, environment, record, finishedAt),
      verdict: 'Recorded',
    };
  };
  return { change, record };
}

/** The record that replaces a claim once its strategy returned `result`. */
export function outcomeRecord(claim: PromotionRecord, result: StrategyResult): PromotionRecord {
  // lastAttemptedTime stays the claim's: backoff and claim timeouts count from the attempt's start.
  const base: Omit<PromotionRecord, 'succeeded'> = {
    revision: claim.revision,
    lastAttemptedTime: claim.lastAttemptedTime,
    ...(claim.attempt === undefined ? {} : { attempt: claim.attempt }),
    ...(claim.claimedBy === undefined ? {} : { claimedBy: claim.claimedBy }),
    ...(claim.deadlineTime === undefined ? {} : { deadlineTime: claim.deadlineTime }),
    ...(claim.redelivery === undefined ? {} : { redelivery: claim.redelivery }),
    ...(claim.rollback === undefined ? {} : { rollback: claim.rollback }),
    ...(claim.upstreamVerifiedTime === undefined
      ? {}
      : { upstreamVerifiedTime: claim.upstreamVerifiedTime }),
  };
  if (result.ok) {
    return {
      ...base,
      phase: 'Succeeded',
      succeeded: true,
      message: truncate(result.message, MaxRecordMessage),
      ...(result.details?.pullRequest === undefined
        ? {}
        : { pullRequest: { ...result.details.pullRequest } }),
    };
  }
  return {
    ...base,
    phase: 'Failed',
    succeeded: false,
    message: truncate(`${result.reason}: ${result.message}`, MaxRecordMessage),
    // Only a refusal is recorded: absent means retryable, as in records written before this field.
    ...(result.retryable ? {} : { retryable: false }),
    ...(result.retryable && result.retryNotBefore !== undefined
      ? // Rounded up: second precision must never let a retry start before the remote's time.
        { retryAfterTime: rfc3339(Math.ceil(result.retryNotBefore / 1000) * 1000) }
      : {}),
  };
}

/** Whether `stored` is still the Claimed record `claim` (same revision, attempt, claimant, time). */
export function isSameClaim(stored: PromotionRecord | undefined, claim: PromotionRecord): boolean {
  return stored?.phase === 'Claimed' && isSameAttempt(stored, claim);
}

/**
 * Whether `stored` is `claim` resolved as Abandoned by a replica that found it past its deadline
 * with its targets not (yet) running the revision: the attempt's own outcome, arriving late, is
 * the better truth and replaces it, while no newer attempt has been claimed.
 */
function isAbandoned(stored: PromotionRecord | undefined, claim: PromotionRecord): boolean {
  return stored?.resolution === 'Abandoned' && isSameAttempt(stored, claim);
}

function isSameAttempt(stored: PromotionRecord, claim: PromotionRecord): boolean {
  return (
    stored.revision === claim.revision &&
    stored.attempt === claim.attempt &&
    stored.claimedBy === claim.claimedBy &&
    stored.lastAttemptedTime === claim.lastAttemptedTime
  );
}
