/**
 * Rollback decisions: an environment goes back to an earlier revision it ran healthy (its stored
 * `verified` list) when the quorum its rollback policy asks for has asked (RollbackAuthorized),
 * or by itself when a promoted revision failed verification within the automatic window
 * (AutomaticRollback, once per revision), or when the release train that promoted it failed
 * (TrainRollback, train-rollback.ts); a rollback whose attempt failed or was abandoned is
 * retried under the retry policy. Each decision rests on the stored records, so a claim that
 * landed (which writes the hold on the revision rolled back) ends it on every replica. Pure.
 */
import type {
  AuthorizationRecord,
  PipelineEnvironment,
  PromotionRecord,
} from '../pipeline/pipeline-resource.js';
import { display } from '../text/text.js';
import { parseTimestamp } from '../time/kube-time.js';
import type {
  EnvironmentDecision,
  EvaluationInput,
  RollbackView,
  TargetStatus,
} from './decisions.js';
import { allows, type Gate } from './gate.js';
import { automaticRollback, ranHealthy } from './automatic-rollback.js';
import { trainRollback } from './train-rollback.js';
import { Reasons } from './reasons.js';
import { decideFromRecord, recordState } from './retry.js';
import { rollbackGateOf } from './revision-holds.js';

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
    trainRollback(input, env) ??
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
    ...(mark.train === undefined ? {} : { train: mark.train }),
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

/**
 * Whether a hold on the request's `from` was set at or after the request. Compared to the
 * second: a hold stored with whole seconds answers a request recorded with milliseconds.
 */
function answered(input: EvaluationInput, environment: string, record: AuthorizationRecord) {
  const recorded = parseTimestamp(record.time);
  const asked = recorded === undefined ? Infinity : Math.floor(recorded / 1000) * 1000;
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
