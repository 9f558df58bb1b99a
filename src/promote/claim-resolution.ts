/**
 * Claims past their deadline, resolved. A replica that died (or was cut off) between claim and
 * outcome leaves its record `Claimed`; once the claim's deadline has passed, its attempt can no
 * longer be running (it is stopped at its own bound), so any replica concludes it from what the
 * environment's targets run, read after the deadline: every target at the claimed revision means
 * the action took effect (Succeeded, resolution Observed, told as PromotionSucceeded); otherwise
 * it is Abandoned (Failed, retryable, so the retry policy decides, never a silent re-run). A
 * target that cannot be read concludes nothing yet. Pure.
 */
import type { RetryPolicy, TargetStatus } from '../evaluate/decisions.js';
import { claimExpiresAt, recordState } from '../evaluate/retry.js';
import type { StatusChange } from '../kube/status-writer.js';
import type {
  Pipeline,
  PromotionRecord,
  PromotionResolution,
} from '../pipeline/pipeline-resource.js';
import { display } from '../pipeline/text.js';
import { withPromotion } from './claim.js';
import { isSameClaim } from './outcome.js';

/** A claim of one environment whose deadline has passed. */
export interface ExpiredClaim {
  environment: string;
  record: PromotionRecord;
  /** When it stopped holding its environment (ms). */
  expiredAt: number;
}

/** An expired claim and how it is concluded. */
export interface ClaimResolution extends ExpiredClaim {
  resolution: PromotionResolution;
}

/** The claims of `pipeline` whose deadline has passed at `now`, in spec order. */
export function expiredClaims(
  pipeline: Pipeline,
  policy: Pick<RetryPolicy, 'claimTimeoutMs'>,
  now: number,
): ExpiredClaim[] {
  const out: ExpiredClaim[] = [];
  for (const env of pipeline.spec.environments) {
    const record = pipeline.status?.environments?.[env.name]?.promotion;
    if (record === undefined || recordState(record) !== 'Claimed') continue;
    const expiredAt = claimExpiresAt(record, policy);
    if (expiredAt !== undefined && now >= expiredAt) {
      out.push({ environment: env.name, record, expiredAt });
    }
  }
  return out;
}

/**
 * How `claim` concludes on its environment's targets as read after its deadline: Observed when
 * every target runs its revision, undefined while some target cannot be read, else Abandoned.
 */
export function concludeClaim(
  claim: ExpiredClaim,
  targets: readonly TargetStatus[],
): ClaimResolution | undefined {
  if (targets.length === 0 || targets.some((t) => t.health === 'Unknown')) return undefined;
  const arrived = targets.every((t) => t.revision === claim.record.revision);
  return { ...claim, resolution: arrived ? 'Observed' : 'Abandoned' };
}

/** The record that replaces an expired claim once concluded. */
export function resolvedRecord(resolution: ClaimResolution): PromotionRecord {
  const { record } = resolution;
  const by = record.claimedBy === undefined ? '' : ` by ${display(record.claimedBy)}`;
  const unrecorded = `the attempt claimed${by} recorded no outcome by its deadline`;
  const rev = display(record.revision);
  if (resolution.resolution === 'Observed') {
    return {
      ...record,
      phase: 'Succeeded',
      succeeded: true,
      resolution: 'Observed',
      message: `${unrecorded}; every target runs ${rev}, so it took effect`,
    };
  }
  return {
    ...record,
    phase: 'Failed',
    succeeded: false,
    resolution: 'Abandoned',
    message: `AttemptAbandoned: ${unrecorded}, and its targets do not run ${rev}`,
  };
}

/**
 * The resolutions as one status change: each replaces its environment's record only while that
 * is still the same expired claim (another replica may have resolved it, or its own outcome may
 * have landed late). The verdict counts the records replaced; 0 writes nothing.
 */
export function resolutionChange(
  resolutions: readonly ClaimResolution[],
  now: number,
): StatusChange<number> {
  return (stored) => {
    let status = stored.status;
    let replaced = 0;
    for (const resolution of resolutions) {
      const current = status?.environments?.[resolution.environment]?.promotion;
      if (!isSameClaim(current, resolution.record)) continue;
      status = withPromotion(status, resolution.environment, resolvedRecord(resolution), now);
      replaced++;
    }
    return replaced === 0 || status === undefined
      ? { keep: 0 }
      : { write: status, verdict: replaced };
  };
}
