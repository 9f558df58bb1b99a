/**
 * Recording a promotion's outcome after its strategy ran. The outcome replaces our own Claimed
 * record only: if another replica has since re-claimed the environment, its record wins.
 */
import type { PipelineWriter } from '../kube/types.js';
import { readPipeline, replacePipelineStatus } from '../pipeline/status-write.js';
import { truncate } from '../pipeline/text.js';
import { rfc3339 } from '../pipeline/time.js';
import type { Pipeline, PromotionRecord } from '../pipeline/types.js';
import { withPromotion } from './claim.js';
import type { StrategyResult } from './strategies/types.js';

/** Longest message stored in a promotion record. */
export const MaxRecordMessage = 1024;

/** Inputs of recordOutcome; `pipeline` is the stored object returned by the claim. */
export interface RecordOutcomeArgs {
  writer: PipelineWriter;
  pipeline: Pipeline;
  environment: string;
  /** The record exactly as the claim wrote it. */
  claim: PromotionRecord;
  result: StrategyResult;
  /** Re-reads allowed after a 409 before giving up; default 3. */
  maxConflictRetries?: number;
}

/**
 * Recorded: the outcome is stored. Superseded: the stored record is no longer our claim (left
 * alone). Gone: the Pipeline was deleted. Unrecorded: conflicts persisted; our Claimed record
 * stays and the retry policy's claim timeout resolves it.
 */
export type RecordOutcome =
  | { outcome: 'Recorded'; pipeline: Pipeline; record: PromotionRecord }
  | { outcome: 'Superseded'; current: PromotionRecord | undefined }
  | { outcome: 'Gone' }
  | { outcome: 'Unrecorded'; reason: 'ConflictRetriesExhausted' };

/**
 * Write the outcome over our claim, with the resourceVersion precondition. On a 409 it re-reads
 * and re-applies only while the stored record is still our claim; bounded by maxConflictRetries.
 */
export async function recordOutcome(args: RecordOutcomeArgs): Promise<RecordOutcome> {
  const record = outcomeRecord(args.claim, args.result);
  const retries = args.maxConflictRetries ?? 3;
  let pipeline = args.pipeline;
  for (let attempt = 0; ; attempt++) {
    const status = withPromotion(pipeline.status, args.environment, record);
    const written = await replacePipelineStatus(args.writer, { ...pipeline, status });
    if (written.outcome === 'Written')
      return { outcome: 'Recorded', pipeline: written.pipeline, record };
    if (written.outcome === 'Gone') return written;
    if (attempt >= retries) return { outcome: 'Unrecorded', reason: 'ConflictRetriesExhausted' };
    const fresh = await readPipeline(args.writer, pipeline);
    if (fresh === undefined) return { outcome: 'Gone' };
    pipeline = fresh;
    const current = pipeline.status?.environments?.[args.environment]?.promotion;
    if (!isSameClaim(current, args.claim)) return { outcome: 'Superseded', current };
  }
}

/** The record that replaces a claim once its strategy returned `result`. */
export function outcomeRecord(claim: PromotionRecord, result: StrategyResult): PromotionRecord {
  // lastAttemptedTime stays the claim's: backoff and claim timeouts count from the attempt's start.
  const base: Omit<PromotionRecord, 'succeeded'> = {
    revision: claim.revision,
    lastAttemptedTime: claim.lastAttemptedTime,
    ...(claim.attempt === undefined ? {} : { attempt: claim.attempt }),
    ...(claim.claimedBy === undefined ? {} : { claimedBy: claim.claimedBy }),
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
  return (
    stored?.phase === 'Claimed' &&
    stored.revision === claim.revision &&
    stored.attempt === claim.attempt &&
    stored.claimedBy === claim.claimedBy &&
    stored.lastAttemptedTime === claim.lastAttemptedTime
  );
}
