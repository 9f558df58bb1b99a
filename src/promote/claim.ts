/**
 * The claim: an optimistic-concurrency write of the promotion record that must land before any
 * promotion action runs. Whoever's write lands first owns the attempt; everybody else re-reads.
 */
import type { EnvironmentDecision } from '../evaluate/types.js';
import type { PipelineWriter } from '../kube/types.js';
import { replacePipelineStatus } from '../pipeline/status-write.js';
import { rfc3339 } from '../pipeline/time.js';
import type { Pipeline, PipelineStatus, PromotionRecord } from '../pipeline/types.js';

/** Inputs of a claim; `pipeline` is the object as read, its resourceVersion the precondition. */
export interface ClaimArgs {
  writer: PipelineWriter;
  pipeline: Pipeline;
  /** A decision with outcome 'Promote', a revision and an attempt number. */
  decision: EnvironmentDecision;
  /** Milliseconds since the epoch. */
  now: number;
  /** This replica's id, recorded as `claimedBy`. */
  instanceId: string;
}

/**
 * Claimed: the record is ours and `pipeline` is the stored object after the write.
 * Conflict: someone wrote first; re-read and re-evaluate, never run. Gone: the Pipeline was deleted.
 */
export type ClaimOutcome =
  | { outcome: 'Claimed'; pipeline: Pipeline; record: PromotionRecord }
  | { outcome: 'Conflict' }
  | { outcome: 'Gone' };

/**
 * Write status.environments[env].promotion = {phase: 'Claimed', ...} with the read
 * resourceVersion as precondition, keeping every other status field. Throws on a decision that
 * is not a complete Promote, and re-throws write errors other than a deleted Pipeline.
 */
export async function claimPromotion(args: ClaimArgs): Promise<ClaimOutcome> {
  const { pipeline } = args;
  const record = claimRecord(args);
  // The object as read already holds this attempt (or a later one): the decision is stale, and
  // writing would hand a second replica the same attempt. Same answer as a 409: re-read.
  const stored = pipeline.status?.environments?.[args.decision.environment]?.promotion;
  if (isClaimedAlready(stored, record)) return { outcome: 'Conflict' };
  const status = withPromotion(pipeline.status, args.decision.environment, record);
  const written = await replacePipelineStatus(args.writer, { ...pipeline, status });
  if (written.outcome !== 'Written') return written;
  return { outcome: 'Claimed', pipeline: written.pipeline, record };
}

/** The record a claim writes; validates the decision first. */
export function claimRecord(args: Omit<ClaimArgs, 'writer'>): PromotionRecord {
  const { decision, pipeline } = args;
  const { revision, attempt } = decision;
  if (decision.outcome !== 'Promote' || revision === undefined || attempt === undefined) {
    throw new TypeError(
      `claimPromotion needs a Promote decision with revision and attempt (got ${decision.outcome})`,
    );
  }
  if (!Number.isInteger(attempt) || attempt < 1) {
    throw new TypeError(`attempt must be a positive integer (got ${attempt})`);
  }
  if (!pipeline.spec.environments.some((env) => env.name === decision.environment)) {
    throw new TypeError(`environment ${decision.environment} is not in the Pipeline spec`);
  }
  return {
    revision,
    attempt,
    lastAttemptedTime: rfc3339(args.now),
    phase: 'Claimed',
    succeeded: false,
    claimedBy: args.instanceId,
  };
}

function isClaimedAlready(stored: PromotionRecord | undefined, next: PromotionRecord): boolean {
  return stored?.revision === next.revision && (stored.attempt ?? 1) >= (next.attempt ?? 1);
}

/** A copy of `status` with one environment's promotion record replaced, all else kept. */
export function withPromotion(
  status: PipelineStatus | undefined,
  environment: string,
  record: PromotionRecord,
): PipelineStatus {
  const environments = status?.environments ?? {};
  return {
    ...status,
    environments: {
      ...environments,
      [environment]: { ...environments[environment], promotion: record },
    },
  };
}
