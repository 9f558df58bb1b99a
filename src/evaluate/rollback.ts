/**
 * Rollback decisions: an environment goes back to an earlier revision it ran healthy (its stored
 * `verified` list) when the quorum its rollback policy asks for has asked (RollbackAuthorized),
 * or by itself when a promoted revision failed verification within the automatic window
 * (AutomaticRollback, once per revision); a rollback whose attempt failed or was abandoned is
 * retried under the retry policy. Each decision rests on the stored records, so a claim that
 * landed (which writes the hold on the revision rolled back) ends it on every replica. Pure.
 */
import type {
  AuthorizationRecord,
  PipelineEnvironment,
  PromotionRecord,
} from '../pipeline/pipeline-resource.js';
import { display } from '../text/text.js';
import { parseDuration } from '../time/duration.js';
import { parseTimestamp } from '../time/kube-time.js';
import type {
  EnvironmentDecision,
  EvaluationInput,
  RollbackView,
  TargetStatus,
} from './decisions.js';
import { allows, type Gate } from './gate.js';
import { haltsInForce } from './halts-gate.js';
import { Reasons } from './reasons.js';
import { decideFromRecord, recordState } from './retry.js';
import { rollbackGateOf } from './revision-holds.js';

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

/**
 * The rollback decision for the environment at `index`, whose targets `own` are all readable,
 * or undefined when no rollback is due (a retry of one, an automatic one, an authorized one).
 */
export function decideRollback(
  input: EvaluationInput,
  index: number,
  own: readonly TargetStatus[],
): EnvironmentDecision | undefined {
  const env = input.spec.environments[index];
  if (env === undefined) return undefined;
  return (
    retriedRollback(input, env, own) ??
    automaticRollback(input, env, own) ??
    authorizedRollback(input, env, own)
  );
}

/** The rollback view a stored record's mark tells. */
export function viewOf(record: PromotionRecord): RollbackView | undefined {
  const mark = record.rollback;
  if (mark === undefined) return undefined;
  return {
    from: mark.from,
    by: [...mark.by],
    reason: mark.reason,
    statements: [...(mark.statements ?? [])],
    automatic: mark.automatic === true,
  };
}

/** A rollback claim still running, or one failed or abandoned with attempts left. */
function retriedRollback(
  input: EvaluationInput,
  env: PipelineEnvironment,
  own: readonly TargetStatus[],
): EnvironmentDecision | undefined {
  const record = input.records[env.name];
  const view = record === undefined ? undefined : viewOf(record);
  if (record === undefined || view === undefined || recordState(record) === 'Succeeded')
    return undefined;
  if (own.every((t) => t.revision === record.revision)) return undefined;
  const decided = decideFromRecord(env.name, record.revision, record, input.policy, input.now);
  if (decided === undefined || decided.outcome === 'Failed') return undefined;
  if (decided.outcome !== 'Promote') return decided;
  return { ...decided, outcome: 'RollBack', rollback: view };
}

/** The one revision every target runs, whatever their health; undefined when they differ. */
function runningRevision(own: readonly TargetStatus[]): string | undefined {
  const first = own[0]?.revision;
  return first !== undefined && own.every((t) => t.revision === first) ? first : undefined;
}

/** The revisions the environment ran healthy, newest first (its stored `verified` list). */
function ranHealthy(input: EvaluationInput, environment: string): string[] {
  return [...(input.histories?.[environment]?.verified ?? [])].reverse().map((v) => v.revision);
}

/** A promoted revision whose verification failed within the automatic window, and how. */
interface FailedVerification {
  bad: string;
  window: string;
  duringHalts: boolean;
  first: TargetStatus;
}

/** The failed verification of `env`'s promoted revision, or undefined (none, or too late). */
function failedVerification(
  input: EvaluationInput,
  env: PipelineEnvironment,
  own: readonly TargetStatus[],
): FailedVerification | undefined {
  const policy = env.promotion?.rollback?.automatic;
  const windowMs = policy === undefined ? undefined : parseDuration(policy.window);
  const record = input.records[env.name];
  if (windowMs === undefined || record === undefined || record.rollback !== undefined)
    return undefined;
  if (recordState(record) !== 'Succeeded' || record.pullRequest?.state === 'open') return undefined;
  const bad = record.revision;
  const entry = input.histories?.[env.name]?.history?.findLast((e) => e.revision === bad);
  const promotedAt = parseTimestamp(entry?.succeededTime);
  if (promotedAt === undefined || !(input.now <= promotedAt + windowMs)) return undefined;
  const first = own.find((t) => t.health === 'Unhealthy' && !TRANSITIONAL.has(t.reason));
  if (first === undefined) return undefined;
  return { bad, window: policy?.window ?? '', duringHalts: policy?.duringHalts === true, first };
}

function automaticRollback(
  input: EvaluationInput,
  env: PipelineEnvironment,
  own: readonly TargetStatus[],
): EnvironmentDecision | undefined {
  const failed = failedVerification(input, env, own);
  if (failed === undefined) return undefined;
  const { bad, first } = failed;
  const holds = input.holds?.[env.name] ?? [];
  // Once per revision: a failed verification already recorded (even lifted) rolls back no more.
  if (holds.some((h) => h.revision === bad && h.reason === 'FailedVerification')) return undefined;
  const rev = display(bad);
  const base = { environment: env.name, revision: bad };
  if (!failed.duringHalts && haltsInForce(input.halts, env.name, input.now).length > 0) {
    return {
      ...base,
      outcome: 'Waiting',
      reason: Reasons.Halted,
      message: `${rev} failed verification in ${env.name}, but a halt holds its automatic rollback`,
    };
  }
  const held = new Set(holds.filter((h) => h.liftedAt === undefined).map((h) => h.revision));
  const target = ranHealthy(input, env.name).find((r) => r !== bad && !held.has(r));
  const what = `${first.reason}: ${display(first.message, 200)}`;
  if (target === undefined) {
    return {
      ...base,
      outcome: 'Failed',
      reason: Reasons.NoRollbackTarget,
      message: `${rev} failed verification in ${env.name} (${what}), and it ran no earlier revision healthy to roll back to`,
    };
  }
  const reason = `${rev} failed verification within ${failed.window} of its promotion (${what})`;
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
 * A rollback the quorum asked for: records of decision `rollback` for one (revision, from),
 * `from` being what the environment runs now, made after any hold on `from` (a hold is written
 * with the claim, so the requests it answered count no more), by distinct allowed principals.
 */
function authorizedRollback(
  input: EvaluationInput,
  env: PipelineEnvironment,
  own: readonly TargetStatus[],
): EnvironmentDecision | undefined {
  const running = runningRevision(own);
  if (running === undefined) return undefined;
  const healthy = new Set(ranHealthy(input, env.name));
  const gate = rollbackGateOf(env);
  const open = (input.authorizations?.[env.name] ?? []).filter(
    (r) =>
      r.decision === 'rollback' &&
      r.from === running &&
      r.revision !== running &&
      healthy.has(r.revision) &&
      allows(gate, r) &&
      configured(input, gate, r) &&
      !answered(input, env.name, r),
  );
  for (const candidate of [...open].reverse()) {
    const asking = distinct(open.filter((r) => r.revision === candidate.revision));
    if (asking.length < gate.minApprovals) continue;
    return authorized(env.name, candidate.revision, running, asking);
  }
  return undefined;
}

/** Where the policy names nobody, whether the principal is a configured approver. */
function configured(input: EvaluationInput, gate: Gate, record: AuthorizationRecord): boolean {
  if (gate.approverLists.length > 0 || input.approvers === undefined) return true;
  return input.approvers.includes(record.principal);
}

/** Whether a hold on the request's `from` was set at or after the request. */
function answered(input: EvaluationInput, environment: string, record: AuthorizationRecord) {
  const asked = parseTimestamp(record.time) ?? Infinity;
  return (input.holds?.[environment] ?? []).some(
    (h) => h.revision === record.from && (parseTimestamp(h.time) ?? Infinity) >= asked,
  );
}

/** The first record of each principal, in record order. */
function distinct(records: readonly AuthorizationRecord[]): AuthorizationRecord[] {
  const seen = new Set<string>();
  return records.filter((r) => !seen.has(r.principal) && (seen.add(r.principal), true));
}

function authorized(
  environment: string,
  revision: string,
  from: string,
  asking: readonly AuthorizationRecord[],
): EnvironmentDecision {
  const by = asking.map((r) => r.principal);
  const reason = asking.map((r) => r.comment ?? '').find((c) => c.trim() !== '') ?? '';
  const statements = asking.flatMap((r) => (r.jti === undefined ? [] : [r.jti]));
  return {
    environment,
    outcome: 'RollBack',
    revision,
    attempt: 1,
    reason: Reasons.RollbackAuthorized,
    message: `${by.map((p) => display(p)).join(', ')} asked to roll ${environment} back from ${display(from)} to ${display(revision)} (${display(reason, 200)})`,
    rollback: { from, by, reason, statements, automatic: false },
  };
}
