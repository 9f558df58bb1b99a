/**
 * Drift: an environment whose targets run another revision than its last successful promotion,
 * pushed back by a person, another tool, or a delivery that was lost or overtaken. It is never
 * reported up to date. The environment's drift policy (docs/policy.md, "Drift") decides whether
 * the gateway promotes the recorded revision again: by default only when the environment never
 * ran it within the rollout timeout (a lost delivery should not be left standing), never when it
 * ran it and then left it (a person's deliberate rollback must not be fought). Pure.
 */
import type {
  DriftSpec,
  EnvironmentStatus,
  PipelineEnvironment,
  PipelineSpec,
  PromotionRecord,
} from '../pipeline/pipeline-resource.js';
import { display } from '../text/text.js';
import { formatTime, parseTimestamp } from '../time/kube-time.js';
import type { DriftView, EnvironmentDecision, RetryPolicy, TargetStatus } from './decisions.js';
import { formatDuration, parseDuration } from '../time/duration.js';
import { Reasons } from './reasons.js';
import { attemptsMade, recordState, redeliveryOf } from './retry.js';

/** How long a promoted revision may take to arrive when the spec does not say: 30 minutes (a webhook that runs a pipeline committing to Git, then Flux applying it). */
export const DEFAULT_ROLLOUT_TIMEOUT_MS = 30 * 60_000;

/** The drift policy in force for one environment, defaults applied. */
export interface DriftPolicy {
  mode: NonNullable<DriftSpec['mode']>;
  rolloutTimeoutMs: number;
}

/**
 * The environment's drift policy: its own `promotion.drift`, else the Pipeline's, else the
 * defaults (CorrectIfNotArrived, 30m). A rollout timeout that cannot be read is the default.
 */
export function driftPolicyOf(spec: PipelineSpec, env: PipelineEnvironment): DriftPolicy {
  const given = env.promotion?.drift ?? spec.promotion?.drift;
  const timeout =
    given?.rolloutTimeout === undefined ? undefined : parseDuration(given.rolloutTimeout);
  return {
    mode: given?.mode ?? 'CorrectIfNotArrived',
    rolloutTimeoutMs: timeout ?? DEFAULT_ROLLOUT_TIMEOUT_MS,
  };
}

/** An environment's drift policy and, when it has drifted, the drift: as the policy view shows it. */
export interface DriftPolicyView {
  mode: DriftPolicy['mode'];
  /** As a duration: `10m`. */
  rolloutTimeout: string;
  /** Present while the targets run another revision than the last successful promotion. */
  drifted?: DriftView;
  /** With `drifted`: whether the policy promotes the recorded revision again. */
  corrects?: boolean;
}

/**
 * The drift part of the policy view of `env`: shown when the spec sets a drift policy or the
 * environment has drifted (its record a delivered success whose revision some readable target
 * does not run, and it ran it since, or the rollout timeout passed); undefined otherwise.
 */
export function driftViewOf(
  args: Omit<PromotedArgs, 'record' | 'policy' | 'waiting'> & {
    record: PromotionRecord | undefined;
  },
): DriftPolicyView | undefined {
  const { spec, env, record, own, stored, now } = args;
  const policy = driftPolicyOf(spec, env);
  const base: DriftPolicyView = {
    mode: policy.mode,
    rolloutTimeout: formatDuration(policy.rolloutTimeoutMs),
  };
  const explicit = (env.promotion?.drift ?? spec.promotion?.drift) !== undefined;
  const drifted =
    record !== undefined &&
    recordState(record) === 'Succeeded' &&
    (record.pullRequest === undefined || record.pullRequest.state === 'merged') &&
    own.length > 0 &&
    own.every((t) => t.health !== 'Unknown') &&
    own.some((t) => t.revision !== record.revision);
  if (!drifted) return explicit ? base : undefined;
  const arrived = wasVerified(stored, record.revision);
  if (!arrived && !(now >= succeededTime(stored, record) + policy.rolloutTimeoutMs)) {
    return explicit ? base : undefined;
  }
  const corrects = policy.mode === 'Correct' || (policy.mode === 'CorrectIfNotArrived' && !arrived);
  return {
    ...base,
    drifted: { promoted: record.revision, running: runningRevisions(own), arrived },
    corrects,
  };
}

/** What deciding a promoted environment's drift reads. */
export interface PromotedArgs {
  spec: PipelineSpec;
  env: PipelineEnvironment;
  /** The record: Succeeded at `record.revision`, which the upstream runs too. */
  record: PromotionRecord;
  /** The environment's aligned targets; not all of them run `record.revision`. */
  own: readonly TargetStatus[];
  stored: Pick<EnvironmentStatus, 'history' | 'verified'> | undefined;
  policy: RetryPolicy;
  now: number;
  /** The record's own decision (AlreadyPromoted, PromotionSucceeded): what a rollout says. */
  waiting: EnvironmentDecision;
}

/**
 * The decision for an environment whose promotion of the upstream's revision succeeded while
 * not every target runs it yet: AlreadyPromoted while it may still be rolling out (until the
 * rollout timeout, when it is looked at again), else a drift: promoted again as a new attempt
 * where the policy says so and the retry budget allows, otherwise Drifted.
 */
export function decidePromoted(args: PromotedArgs): EnvironmentDecision {
  const { env, record, now } = args;
  const revision = record.revision;
  const arrived = wasVerified(args.stored, revision);
  const policy = driftPolicyOf(args.spec, env);
  const succeededAt = succeededTime(args.stored, record);
  const timeoutAt = succeededAt + policy.rolloutTimeoutMs;
  if (!arrived && !(now >= timeoutAt)) {
    // Still rolling out: looked at again when the rollout timeout passes.
    return Number.isFinite(timeoutAt) ? { ...args.waiting, retryAt: timeoutAt } : args.waiting;
  }
  const drift: DriftView = { promoted: revision, running: runningRevisions(args.own), arrived };
  const corrects = policy.mode === 'Correct' || (policy.mode === 'CorrectIfNotArrived' && !arrived);
  const attempts = attemptsMade(record, args.policy);
  const what = driftText(env.name, drift, succeededAt);
  const rev = display(revision);
  if (corrects && attempts < args.policy.maxAttempts) {
    return {
      environment: env.name,
      outcome: 'Promote',
      revision,
      attempt: attempts + 1,
      reason: Reasons.DriftCorrection,
      drift,
      // Delivered again as a new message: a receiver that drops repeated ids would drop it.
      redelivery: (redeliveryOf(record).redelivery ?? 0) + 1,
      message: `${what}; promoting ${rev} again (attempt ${String(attempts + 1)} of ${String(args.policy.maxAttempts)})`,
    };
  }
  const why = corrects
    ? `all ${String(args.policy.maxAttempts)} attempts are spent`
    : policy.mode === 'Warn'
      ? 'the drift policy is Warn'
      : 'it ran it and then left it, which is not fought';
  return {
    environment: env.name,
    outcome: 'Drifted',
    revision,
    reason: Reasons.Drifted,
    drift,
    message: `${what}; reported, not corrected (${why})`,
  };
}

/**
 * The decision for an environment whose targets all run `running`, the upstream's revision too,
 * while its record says a newer revision succeeded: both went back behind the gateway's
 * promotion. Reported, never corrected (the upstream no longer runs what was promoted).
 */
export function driftedBehind(
  env: PipelineEnvironment,
  record: PromotionRecord,
  running: string,
  stored: Pick<EnvironmentStatus, 'history' | 'verified'> | undefined,
): EnvironmentDecision {
  const drift: DriftView = {
    promoted: record.revision,
    running: [running],
    arrived: wasVerified(stored, record.revision),
  };
  return {
    environment: env.name,
    outcome: 'Drifted',
    revision: record.revision,
    reason: Reasons.Drifted,
    drift,
    message: `${driftText(env.name, drift, succeededTime(stored, record))}, as the environment before it does; reported, not corrected`,
  };
}

function driftText(env: string, drift: DriftView, succeededAt: number): string {
  const running =
    drift.running.length === 0 ? 'no revision' : drift.running.map((r) => display(r)).join(', ');
  const history = drift.arrived ? 'ran it, then left it' : 'never ran it';
  return `${env} runs ${running}, not ${display(drift.promoted)} whose promotion succeeded at ${formatTime(succeededAt)} (it ${history})`;
}

/** Whether the environment was ever verified running `revision`, every target Healthy. */
function wasVerified(
  stored: Pick<EnvironmentStatus, 'verified'> | undefined,
  revision: string,
): boolean {
  return (stored?.verified ?? []).some((entry) => entry.revision === revision);
}

/** When the record's promotion succeeded (its history's stamp), else when it was attempted. */
function succeededTime(
  stored: Pick<EnvironmentStatus, 'history'> | undefined,
  record: PromotionRecord,
): number {
  const entry = (stored?.history ?? []).findLast((e) => e.revision === record.revision);
  return (
    parseTimestamp(entry?.succeededTime) ?? parseTimestamp(record.lastAttemptedTime) ?? Number.NaN
  );
}

/** The distinct revisions the targets run, in target order (targets with none left out). */
function runningRevisions(own: readonly TargetStatus[]): string[] {
  const revisions = own
    .map((t) => t.revision)
    .filter((r): r is string => r !== undefined && r !== '');
  return [...new Set(revisions)];
}
