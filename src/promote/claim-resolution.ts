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
import { display } from '../text/text.js';
import { jsonEqual } from '../json/json-equal.js';
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

/**
 * Failed records whose revision every target runs (none Unknown): the attempt took effect though
 * its answer said otherwise (a timeout after the receiver applied it, a 5xx sent after applying),
 * so the record is concluded Observed as an expired claim would be: the status never says
 * "failed" of a revision the environment runs, and its success is told.
 */
export function arrivedFailures(
  pipeline: Pipeline,
  statuses: Readonly<Record<string, readonly TargetStatus[]>>,
): ClaimResolution[] {
  const out: ClaimResolution[] = [];
  for (const env of pipeline.spec.environments) {
    const record = pipeline.status?.environments?.[env.name]?.promotion;
    if (record === undefined || recordState(record) !== 'Failed') continue;
    const targets = statuses[env.name] ?? [];
    if (targets.length === 0 || targets.some((t) => t.health === 'Unknown')) continue;
    if (!targets.every((t) => t.revision === record.revision)) continue;
    out.push({ environment: env.name, record, expiredAt: -Infinity, resolution: 'Observed' });
  }
  return out;
}

/** The record that replaces an expired claim (or a failure that took effect) once concluded. */
export function resolvedRecord(resolution: ClaimResolution): PromotionRecord {
  const { record } = resolution;
  const by = record.claimedBy === undefined ? '' : ` by ${display(record.claimedBy)}`;
  const unrecorded =
    recordState(record) === 'Failed'
      ? `the attempt${by} was recorded as failed (${display(record.message ?? 'no message', 200)})`
      : `the attempt claimed${by} recorded no outcome by its deadline`;
  const rev = display(record.revision);
  if (resolution.resolution === 'Observed') {
    const { retryable: _r, retryAfterTime: _t, ...kept } = record;
    return {
      ...kept,
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
 * is still the record concluded on (the same expired claim, or the same failure: another replica
 * may have resolved it, or its own outcome may have landed late). The verdict counts the records
 * replaced; 0 writes nothing.
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
      const same =
        recordState(resolution.record) === 'Failed'
          ? jsonEqual(current, resolution.record)
          : isSameClaim(current, resolution.record);
      if (!same) continue;
      status = withPromotion(status, resolution.environment, resolvedRecord(resolution), now);
      replaced++;
    }
    return replaced === 0 || status === undefined
      ? { keep: 0 }
      : { write: status, verdict: replaced };
  };
}
