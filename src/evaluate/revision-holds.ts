/**
 * Revisions an environment does not take: one it was rolled back from (RolledBack) and one that
 * failed verification in it or in any environment before it (FailedVerification), each until a
 * person lifts the hold; a newer revision upstream is not held. Who may roll back, and how many
 * must ask (the rollback gate). Pure.
 */
import type {
  AuthorizationRecord,
  PipelineEnvironment,
  RevisionHold,
} from '../pipeline/pipeline-resource.js';
import { display } from '../text/text.js';
import type { EnvironmentDecision, EvaluationInput } from './decisions.js';
import { allows, type Gate } from './gate.js';
import { Reasons } from './reasons.js';

/**
 * The rollback gate of `env`: its `promotion.rollback` approvers (any configured approver, never
 * a CI principal, when none are named) and how many distinct ones must ask (default 1).
 */
export function rollbackGateOf(env: PipelineEnvironment): Gate {
  const policy = env.promotion?.rollback;
  const min = policy?.minApprovals;
  const minApprovals = typeof min === 'number' && Number.isSafeInteger(min) && min > 1 ? min : 1;
  const approvers = policy?.approvers ?? [];
  return {
    minApprovals,
    minHumanApprovals: 0,
    approverLists: approvers.length > 0 ? [approvers] : [],
  };
}

/** Whether the rollback gate of `env` lets `record`'s principal roll back or lift a hold. */
export function mayRollBack(env: PipelineEnvironment, record: AuthorizationRecord): boolean {
  return allows(rollbackGateOf(env), record);
}

/** The holds of `holds` on `revision` that hold it now (not lifted). */
export function holdsOn(
  holds: readonly RevisionHold[] | undefined,
  revision: string,
): RevisionHold[] {
  return (holds ?? []).filter((h) => h.revision === revision && h.liftedAt === undefined);
}

/**
 * The Waiting decision while `revision`, healthy upstream, is held from the environment at
 * `index`: by its own hold, or by a failed verification in an environment before it. Undefined
 * when nothing holds it.
 */
export function heldRevision(
  input: EvaluationInput,
  index: number,
  revision: string,
  ready: string,
): EnvironmentDecision | undefined {
  const envs = input.spec.environments;
  const env = envs[index];
  if (env === undefined) return undefined;
  const own = holdsOn(input.holds?.[env.name], revision)[0];
  if (own !== undefined) return waiting(env.name, revision, ready, own, env.name);
  for (const upstream of envs.slice(0, index)) {
    const failed = holdsOn(input.holds?.[upstream.name], revision).find(
      (h) => h.reason === 'FailedVerification',
    );
    if (failed !== undefined) return waiting(env.name, revision, ready, failed, upstream.name);
  }
  return undefined;
}

function waiting(
  environment: string,
  revision: string,
  ready: string,
  hold: RevisionHold,
  where: string,
): EnvironmentDecision {
  const rev = display(revision);
  const why =
    hold.reason === 'RolledBack'
      ? `${environment} was rolled back from ${rev} by ${display(hold.by)} at ${display(hold.time)}`
      : `${rev} failed verification in ${where} at ${display(hold.time)}`;
  return {
    environment,
    outcome: 'Waiting',
    revision,
    reason: hold.reason === 'RolledBack' ? Reasons.RolledBack : Reasons.FailedVerification,
    message: `${ready}; ${why}, so ${environment} does not take it until the hold is lifted or a newer revision arrives`,
  };
}
