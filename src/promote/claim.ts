/**
 * The claim: the promotion record that must land in the status before any promotion action
 * runs. Whoever's write lands first owns the attempt; everybody else re-reads and re-decides.
 * One attempt per environment at a time: a claim never replaces another claim (a live one is
 * waited for, one past its deadline is resolved first: claim-resolution.ts), never goes to a
 * revision older than one the record shows succeeded or in flight, and carries its attempt's
 * deadline, after which any replica may resolve it (docs/architecture.md, "The claim protocol").
 */
import type { EnvironmentDecision, ShadowHold } from '../evaluate/decisions.js';
import { committedPromotion, isOlderThan } from '../evaluate/promotion-order.js';
import { recordState } from '../evaluate/retry.js';
import type { StatusChange } from '../kube/status-writer.js';
import { jsonEqual } from '../json/json-equal.js';
import { rfc3339, rfc3339Millis } from '../time/kube-time.js';
import type {
  Pipeline,
  PipelineStatus,
  PromotionRecord,
  ShadowHoldRecord,
} from '../pipeline/pipeline-resource.js';
import { withRecorded } from './history.js';
import { rollbackMark, withRollbackHold } from './rollback-hold.js';

/**
 * What a claim's deadline allows beyond its strategy's own bound: for the outcome's status write
 * after the strategy was stopped (its conflict policy takes about 0.4 s at most) and for the
 * clocks of replicas to differ (NTP keeps them within milliseconds; a replica whose clock runs
 * ahead by more than this could resolve a claim whose outcome is still being written).
 */
export const CLAIM_MARGIN_MS = 5_000;

/** Inputs of a claim; `pipeline` is the object the decision was computed on. */
export interface ClaimArgs {
  pipeline: Pipeline;
  /** A decision with outcome 'Promote', a revision and an attempt number. */
  decision: EnvironmentDecision;
  /** Milliseconds since the epoch. */
  now: number;
  /** This replica's id, recorded as `claimedBy`. */
  instanceId: string;
  /** The longest the strategy's attempt may take (ms): it is stopped then. */
  attemptTimeoutMs: number;
}

/** Claimed: the record is ours. Lost: someone else moved first; re-read, never run. */
export type ClaimVerdict = 'Claimed' | 'Lost';

/**
 * The claim as a status change: status.environments[env].promotion = {phase: 'Claimed', ...},
 * every other field kept. It applies only while the stored spec, promotion record and
 * authorizations of the environment are exactly those the decision was computed on: anything
 * else means another replica claimed (or the inputs moved), which a claim never overrides.
 * Throws on a decision that is not a complete Promote.
 */
export function claimChange(args: ClaimArgs): StatusChange<ClaimVerdict> {
  const record = claimRecord(args);
  const environment = args.decision.environment;
  const basis = args.pipeline;
  return (stored) => {
    const current = stored.status?.environments?.[environment];
    // Another attempt of this environment may still run (or its end is not recorded yet): one
    // attempt at a time, whatever revision it is for.
    if (current?.promotion !== undefined && recordState(current.promotion) === 'Claimed') {
      return { keep: 'Lost' };
    }
    // Never back behind a revision the record shows succeeded or in flight, whatever the reads
    // this decision was made on said: only a rollback goes back, and it says so.
    const committed = committedPromotion(current);
    if (
      record.rollback === undefined &&
      isOlderThan(committed, record.revision, args.decision.upstreamVerifiedAt)
    ) {
      return { keep: 'Lost' };
    }
    if (!sameInputs(basis, stored, environment)) return { keep: 'Lost' };
    const write = withPromotion(stored.status, environment, record, args.now);
    return { write: withRollbackHold(write, environment, record, args.now), verdict: 'Claimed' };
  };
}

/** Whether `stored` still holds the spec, record and authorizations `basis` decided on. */
function sameInputs(basis: Pipeline, stored: Pipeline, environment: string): boolean {
  if (basis.metadata.generation !== stored.metadata.generation) return false;
  const before = basis.status?.environments?.[environment];
  const now = stored.status?.environments?.[environment];
  return (
    jsonEqual(before?.promotion, now?.promotion) && jsonEqual(before?.approvals, now?.approvals)
  );
}

/** The record a claim writes; validates the decision first. */
export function claimRecord(args: ClaimArgs): PromotionRecord {
  const { decision, pipeline } = args;
  const { revision, attempt } = decision;
  const outcome = decision.outcome;
  if (
    (outcome !== 'Promote' && outcome !== 'RollBack') ||
    revision === undefined ||
    attempt === undefined ||
    (outcome === 'RollBack') !== (decision.rollback !== undefined)
  ) {
    throw new TypeError(
      `claimPromotion needs a Promote or RollBack decision with revision and attempt (got ${outcome})`,
    );
  }
  if (!Number.isInteger(attempt) || attempt < 1) {
    throw new TypeError(`attempt must be a positive integer (got ${attempt})`);
  }
  if (!pipeline.spec.environments.some((env) => env.name === decision.environment)) {
    throw new TypeError(`environment ${decision.environment} is not in the Pipeline spec`);
  }
  const upstream = decision.upstreamVerifiedAt;
  return {
    revision,
    attempt,
    lastAttemptedTime: rfc3339(args.now),
    phase: 'Claimed',
    succeeded: false,
    claimedBy: args.instanceId,
    deadlineTime: rfc3339Millis(claimDeadline(args)),
    ...(decision.redelivery === undefined ? {} : { redelivery: decision.redelivery }),
    ...(decision.wouldHold === undefined ? {} : { wouldHold: shadowRecords(decision.wouldHold) }),
    ...(decision.rollback === undefined
      ? upstream === undefined
        ? {}
        : { upstreamVerifiedTime: rfc3339Millis(upstream) }
      : { rollback: rollbackMark(decision.rollback) }),
  };
}

/** What a claim records of the shadow gates that would have held it (their messages are the view's). */
function shadowRecords(holds: readonly ShadowHold[]): ShadowHoldRecord[] {
  return holds.slice(0, 16).map(({ gate, name, reason }) => ({ gate, name, reason }));
}

/** When the claimed attempt must have ended (ms): its strategy's bound and the margin. */
export function claimDeadline(args: Pick<ClaimArgs, 'now' | 'attemptTimeoutMs'>): number {
  return args.now + Math.max(0, args.attemptTimeoutMs) + CLAIM_MARGIN_MS;
}

/**
 * A copy of `status` with one environment's promotion record replaced (and its history told,
 * src/promote/history.ts, as of `at` ms), all else kept.
 */
export function withPromotion(
  status: PipelineStatus | undefined,
  environment: string,
  record: PromotionRecord,
  at: number,
): PipelineStatus {
  const environments = status?.environments ?? {};
  return {
    ...status,
    environments: {
      ...environments,
      [environment]: withRecorded(environments[environment], record, at),
    },
  };
}
