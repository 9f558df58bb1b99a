/**
 * Automatic rollback (docs/policy.md, "Automatic rollback"): within `rollback.automatic.window`
 * after a promotion of an environment succeeded, a target turning unhealthy for a reason that is
 * not a rollout under way, or one of the environment's checks failing for the promoted
 * revision, is a failed verification: the environment goes back to the newest other revision it
 * ran healthy, once per revision. While the window lasts, the decision names the revision whose
 * checks are read again (`verifying`). Pure.
 */
import type { PipelineEnvironment } from '../pipeline/pipeline-resource.js';
import { display } from '../text/text.js';
import { parseDuration } from '../time/duration.js';
import { parseTimestamp } from '../time/kube-time.js';
import type { EnvironmentDecision, EvaluationInput, TargetStatus } from './decisions.js';
import { haltsInForce } from './halts-gate.js';
import { Reasons } from './reasons.js';
import { recordState } from './retry.js';

/** The principal an automatic rollback is recorded as. */
export const GATEWAY_PRINCIPAL = 'promotion-gateway';

/**
 * Target reasons that say a rollout is still under way, not that it failed: an automatic
 * rollback never fires on them.
 */
const TRANSITIONAL = new Set([
  'StaleGeneration',
  'Reconciling',
  'Progressing',
  'DependencyNotReady',
  'NotReady',
  'NoDeployedRelease',
  'NoAppliedRevision',
]);

/** The revisions the environment ran healthy, newest first (its stored `verified` list). */
export function ranHealthy(input: EvaluationInput, environment: string): string[] {
  return [...(input.histories?.[environment]?.verified ?? [])].reverse().map((v) => v.revision);
}

/** A promoted revision inside its automatic window. */
interface Watched {
  bad: string;
  window: string;
  /** When the window ends (ms). */
  until: number;
  duringHalts: boolean;
}

/**
 * The revision `env`'s latest promotion succeeded with, while `now` is inside its automatic
 * window and no failed verification of it is recorded yet; undefined otherwise.
 */
function watched(input: EvaluationInput, env: PipelineEnvironment): Watched | undefined {
  const policy = env.promotion?.rollback?.automatic;
  const windowMs = policy === undefined ? undefined : parseDuration(policy.window);
  const promoted = promotedOf(input, env.name);
  if (windowMs === undefined || promoted === undefined) return undefined;
  const { bad, promotedAt } = promoted;
  if (!(input.now <= promotedAt + windowMs)) return undefined;
  // Once per revision: a failed verification already recorded (even lifted) rolls back no more.
  const holds = input.holds?.[env.name] ?? [];
  if (holds.some((h) => h.revision === bad && h.reason === 'FailedVerification')) return undefined;
  const window = policy?.window ?? '';
  return { bad, window, until: promotedAt + windowMs, duringHalts: policy?.duringHalts === true };
}

/** The revision the latest promotion (not a rollback) delivered, and when it succeeded (ms). */
function promotedOf(
  input: EvaluationInput,
  environment: string,
): { bad: string; promotedAt: number } | undefined {
  const record = input.records[environment];
  if (record === undefined || record.rollback !== undefined) return undefined;
  if (recordState(record) !== 'Succeeded' || record.pullRequest?.state === 'open') return undefined;
  const bad = record.revision;
  const entry = input.histories?.[environment]?.history?.findLast((e) => e.revision === bad);
  const promotedAt = parseTimestamp(entry?.succeededTime);
  return promotedAt === undefined ? undefined : { bad, promotedAt };
}

/** What failed: a target's health, or a check's result for the promoted revision. */
function failureOf(
  input: EvaluationInput,
  env: PipelineEnvironment,
  own: readonly TargetStatus[],
  bad: string,
): string | undefined {
  const target = own.find((t) => t.health === 'Unhealthy' && !TRANSITIONAL.has(t.reason));
  if (target !== undefined) return `${target.reason}: ${display(target.message, 200)}`;
  const check = input.checks?.[env.name]?.find((c) => c.revision === bad && c.state === 'Failed');
  if (check === undefined) return undefined;
  const name = env.promotion?.checks?.[check.index]?.name ?? String(check.index);
  return `check ${name} failed: ${display(check.message, 200)}`;
}

/** The automatic rollback of `env` due now, or what holds it; undefined when none is due. */
export function automaticRollback(
  input: EvaluationInput,
  env: PipelineEnvironment,
  own: readonly TargetStatus[],
): EnvironmentDecision | undefined {
  const watch = watched(input, env);
  if (watch === undefined) return undefined;
  const what = failureOf(input, env, own, watch.bad);
  if (what === undefined) return undefined;
  const { bad } = watch;
  const rev = display(bad);
  const base = { environment: env.name, revision: bad };
  if (!watch.duringHalts && haltsInForce(input.halts, env.name, input.now).length > 0) {
    return {
      ...base,
      outcome: 'Waiting',
      reason: Reasons.Halted,
      message: `${rev} failed verification in ${env.name}, but a halt holds its automatic rollback`,
    };
  }
  const holds = input.holds?.[env.name] ?? [];
  const held = new Set(holds.filter((h) => h.liftedAt === undefined).map((h) => h.revision));
  const target = ranHealthy(input, env.name).find((r) => r !== bad && !held.has(r));
  if (target === undefined) {
    return {
      ...base,
      outcome: 'Failed',
      reason: Reasons.NoRollbackTarget,
      message: `${rev} failed verification in ${env.name} (${what}), and it ran no earlier revision healthy to roll back to`,
    };
  }
  const reason = `${rev} failed verification within ${watch.window} of its promotion (${what})`;
  return {
    environment: env.name,
    outcome: 'RollBack',
    revision: target,
    attempt: 1,
    reason: Reasons.AutomaticRollback,
    message: `${reason}; rolling ${env.name} back to ${display(target)}`,
    rollback: { from: bad, by: [GATEWAY_PRINCIPAL], reason, statements: [], automatic: true },
  };
}

/**
 * `decision` for the environment at `index`, with `verifying` while it is inside its automatic
 * window and has checks to read again for the promoted revision, and `retryAt` when a result of
 * them expires (to read it again) or the window ends, unless the decision looks again sooner.
 */
export function withVerification(
  input: EvaluationInput,
  index: number,
  decision: EnvironmentDecision,
): EnvironmentDecision {
  const env = input.spec.environments[index];
  if (env === undefined || (env.promotion?.checks ?? []).length === 0) return decision;
  if (decision.outcome === 'RollBack') return decision;
  const watch = watched(input, env);
  if (watch === undefined) return decision;
  const expiries = (input.checks?.[env.name] ?? [])
    .filter((c) => c.revision === watch.bad && c.expiresAt > input.now)
    .map((c) => c.expiresAt);
  const retryAt = Math.min(decision.retryAt ?? Infinity, watch.until, ...expiries);
  return { ...decision, verifying: { revision: watch.bad, until: watch.until }, retryAt };
}
