/**
 * A failed train release's rollback (docs/policy.md, "Release trains"): with the train's
 * `rollbackOnFailure`, a member that the release promoted into the environment (its promotion of
 * the release revision succeeded since the release started) goes back to the newest other
 * revision it ran healthy there, once: the rollback's claim records the mark, and a record that
 * is a rollback is never rolled back again. Pure: the train's release comes in as input.
 */
import type { PipelineEnvironment, PromotionRecord } from '../pipeline/pipeline-resource.js';
import { display } from '../text/text.js';
import { parseTimestamp } from '../time/kube-time.js';
import { GATEWAY_PRINCIPAL, ranHealthy } from './automatic-rollback.js';
import type { EnvironmentDecision, EvaluationInput } from './decisions.js';
import { haltsInForce } from './halts-gate.js';
import { Reasons } from './reasons.js';
import { recordState } from './retry.js';
import type { TrainGateInput } from './train-input.js';

/** The rollback of `env` its train's failed release asks for now; undefined when none is due. */
export function trainRollback(
  input: EvaluationInput,
  env: PipelineEnvironment,
): EnvironmentDecision | undefined {
  const gate = input.trains?.[env.name];
  const from = promotedByFailedRelease(input, env.name, gate);
  if (gate === undefined || from === undefined) return undefined;
  const base = { environment: env.name, revision: from };
  const why = `train ${gate.train}'s release ${gate.release?.digest.slice(0, 19) ?? ''} into ${env.name} failed`;
  if (haltsInForce(input.halts, env.name, input.now).length > 0)
    return {
      ...base,
      outcome: 'Waiting',
      reason: Reasons.Halted,
      message: `${why}, but a halt holds the rollback of ${gate.member} from ${display(from)}`,
    };
  const holds = input.holds?.[env.name] ?? [];
  const held = new Set(holds.filter((h) => h.liftedAt === undefined).map((h) => h.revision));
  const target = ranHealthy(input, env.name).find((r) => r !== from && !held.has(r));
  if (target === undefined)
    return {
      ...base,
      outcome: 'Failed',
      reason: Reasons.NoRollbackTarget,
      message: `${why}; ${env.name} ran no revision before ${display(from)} healthy to roll ${gate.member} back to`,
    };
  const reason = `${why}; ${gate.member} goes back to what it ran before`;
  return {
    environment: env.name,
    outcome: 'RollBack',
    revision: target,
    attempt: 1,
    reason: Reasons.TrainRollback,
    message: `${reason}: rolling ${env.name} back from ${display(from)} to ${display(target)}`,
    rollback: {
      ...{ from, by: [GATEWAY_PRINCIPAL], reason, statements: [], automatic: true },
      train: gate.train,
    },
  };
}

/**
 * The member's release revision when the train rolls back on failure, its release is Failed,
 * and the environment's record is that revision's promotion (not a rollback), succeeded (a pull
 * request merged) and claimed since the release started; undefined otherwise.
 */
export function promotedByFailedRelease(
  input: EvaluationInput,
  environment: string,
  gate: TrainGateInput | undefined,
): string | undefined {
  const release = gate?.release;
  if (gate?.rollbackOnFailure !== true || gate.probe === true || release?.state !== 'Failed')
    return undefined;
  const revision = release.members[gate.member];
  const record = input.records[environment];
  if (revision === undefined || record?.revision !== revision || record.rollback !== undefined)
    return undefined;
  if (recordState(record) !== 'Succeeded' || record.pullRequest?.state === 'open') return undefined;
  const started = release.startedAt ?? Infinity;
  // Stored times are whole seconds: a claim in the release's first second counts as since.
  const since = Math.floor(started / 1000) * 1000;
  return promotedAt(input, environment, record) >= since ? revision : undefined;
}

/** When the record's revision was first claimed (its history entry), else its last attempt (ms). */
function promotedAt(input: EvaluationInput, environment: string, record: PromotionRecord): number {
  const entry = input.histories?.[environment]?.history?.findLast(
    (e) => e.revision === record.revision && e.rollback === undefined,
  );
  return parseTimestamp(entry?.startedTime ?? record.lastAttemptedTime) ?? -Infinity;
}
