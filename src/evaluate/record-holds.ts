/**
 * What an environment's stored promotion records hold it to, before any policy gate: a claim
 * still running (for any revision: one attempt per environment at a time), a newer revision
 * already promoted (never an older one over it), and a drift behind what was promoted. Pure.
 */
import type {
  EnvironmentStatus,
  PipelineEnvironment,
  PromotionRecord,
} from '../pipeline/pipeline-resource.js';
import { display } from '../text/text.js';
import { formatTime, parseTimestamp } from '../time/kube-time.js';
import type {
  EnvironmentDecision,
  EvaluationInput,
  RetryPolicy,
  TargetStatus,
} from './decisions.js';
import { driftedBehind } from './drift.js';
import { committedPromotion, isOlderThan } from './promotion-order.js';
import { Reasons } from './reasons.js';
import { describeTargets } from './target-states.js';
import { claimExpiresAt, isLiveClaim, recordState } from './retry.js';

/** One environment as the record holds see it. */
export interface HoldArgs {
  input: EvaluationInput;
  policy: RetryPolicy;
  env: PipelineEnvironment;
  /** The environment before it, whose revision `revision` is. */
  upstream: string;
  /** The revision the upstream is healthy at. */
  revision: string;
}

/**
 * The decision while the stored record holds the environment away from `revision`: a claim of
 * another revision before its deadline (Waiting until it ends, then the newest revision due is
 * decided), or a newer revision succeeded or in flight (Waiting for a revision newer than it).
 * Undefined when neither holds.
 */
export function heldByRecords(args: HoldArgs): EnvironmentDecision | undefined {
  const { input, env, revision } = args;
  const record = input.records[env.name];
  if (
    record !== undefined &&
    record.revision !== revision &&
    isLiveClaim(record, args.policy, input.now)
  ) {
    return waitForClaim(args, record);
  }
  const committed = committedPromotion({
    promotion: record,
    history: input.histories?.[env.name]?.history,
  });
  if (!isOlderThan(committed, revision, input.firstVerified?.[args.upstream])) return undefined;
  const newer = display(committed?.revision);
  return {
    environment: env.name,
    outcome: 'Waiting',
    revision,
    reason: Reasons.NewerRevisionPromoted,
    message:
      `${env.name} keeps ${newer}: ${args.upstream} runs ${display(revision)}, which it ran before ` +
      `${newer}, and an older revision is never promoted over a newer one; ${env.name} waits for a newer revision`,
  };
}

function waitForClaim(args: HoldArgs, record: PromotionRecord): EnvironmentDecision {
  const { env, revision } = args;
  const expiresAt = claimExpiresAt(record, args.policy);
  const claimedAt = parseTimestamp(record.lastAttemptedTime);
  const by = record.claimedBy === undefined ? '' : ` by ${display(record.claimedBy)}`;
  const at = claimedAt === undefined ? '' : ` at ${formatTime(claimedAt)}`;
  const until = expiresAt === undefined ? '' : `, ${formatTime(expiresAt)} at the latest`;
  return {
    environment: env.name,
    outcome: 'Waiting',
    revision,
    reason: Reasons.PromotionInProgress,
    message: `${env.name} waits for the attempt promoting ${display(record.revision)} (claimed${at}${by}) to end${until}; then ${display(revision)} is decided`,
    ...(expiresAt === undefined ? {} : { retryAt: expiresAt }),
  };
}

/**
 * The decision for an environment whose targets all run the upstream's `revision`: UpToDate
 * (Deployed, or RollingOut while some target is not healthy yet), unless its record says a newer
 * revision succeeded there: then both went back behind it, which is a drift, not up to date.
 */
export function upToDate(
  args: HoldArgs,
  own: readonly TargetStatus[],
  stored: Pick<EnvironmentStatus, 'history' | 'verified'> | undefined,
): EnvironmentDecision {
  const { env, revision, input } = args;
  const record = input.records[env.name];
  if (record !== undefined && isDeliveredSuccess(record)) {
    const promoted = {
      revision: record.revision,
      upstreamVerifiedAt: parseTimestamp(record.upstreamVerifiedTime) ?? Number.NaN,
    };
    if (isOlderThan(promoted, revision, input.firstVerified?.[args.upstream])) {
      return driftedBehind(env, record, revision, stored);
    }
  }
  const rev = display(revision);
  const healthy = own.every((t) => t.health === 'Healthy');
  const count = own.length === 1 ? '1 target' : `all ${String(own.length)} targets`;
  return {
    environment: env.name,
    revision,
    outcome: 'UpToDate',
    reason: healthy ? Reasons.Deployed : Reasons.RollingOut,
    message: healthy
      ? `${env.name} runs ${rev} on ${count}`
      : `${env.name} runs ${rev} on ${count} but ${describeTargets(own.filter((t) => t.health !== 'Healthy'))} not healthy yet`,
  };
}

/** A Succeeded record whose change reached Git or the receiver (not a pull request still open). */
function isDeliveredSuccess(record: PromotionRecord): boolean {
  if (recordState(record) !== 'Succeeded') return false;
  return record.pullRequest === undefined || record.pullRequest.state === 'merged';
}
