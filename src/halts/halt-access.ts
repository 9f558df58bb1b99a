/**
 * Who may halt (and lift a halt of) an environment of a Pipeline, or a whole Pipeline: a
 * configured approver allowed by the approver lists of every environment the halt covers (their
 * `approval.approvers` and the operator's floor), by SSO token or signed statement; or a CI job
 * whose policy covers the one named environment (no CI policy covers a whole Pipeline).
 */
import type { Principal } from '../auth/identity.js';
import { allows, type GateFloor } from '../evaluate/gate.js';
import type { PipelineRef } from '../pipeline/id.js';
import type { Pipeline } from '../pipeline/pipeline-resource.js';

/**
 * An authenticated caller: its principal and, for a CI job, whether a policy covers one
 * environment of a Pipeline (undefined = the whole Pipeline, which no CI policy covers).
 */
export interface HaltCaller {
  principal: Principal;
  ciAllowed: (pipeline: PipelineRef, environment: string | undefined) => Promise<boolean>;
  /** The signed statement the caller sent (the statement door), kept in the halt record. */
  statement?: string;
}

/** The operator's side of the judgement: the approvers' names and the floors. */
export interface HaltPolicy {
  /** The configured approvers' names: only they may halt as people. */
  approvers: readonly string[];
  floors: Readonly<Record<string, GateFloor | undefined>>;
}

/** Whether `caller` may halt (or lift a halt of) `environment` of `pipeline`, or all of it. */
export async function mayHalt(
  policy: HaltPolicy,
  pipeline: Pipeline,
  caller: HaltCaller,
  environment: string | undefined,
): Promise<boolean> {
  const { principal } = caller;
  if (principal.kind === 'ci') return caller.ciAllowed(pipeline.metadata, environment);
  if (principal.kind !== 'human' || !policy.approvers.includes(principal.name)) return false;
  const covered = pipeline.spec.environments.filter(
    (e) => environment === undefined || e.name === environment,
  );
  const record = {
    principal: principal.name,
    kind: principal.kind,
    groups: [...principal.groups],
    decision: 'approve' as const,
    revision: '',
    time: '',
  };
  return covered.every((env) => {
    const lists = [
      env.promotion?.approval?.approvers ?? [],
      policy.floors[env.name]?.approvers ?? [],
    ];
    const approverLists = lists.filter((l) => l.length > 0);
    return allows({ minApprovals: 1, minHumanApprovals: 0, approverLists }, record);
  });
}

/** Whether the Pipeline has `environment` (always, for a halt of the whole Pipeline). */
export function hasEnvironment(pipeline: Pipeline, environment: string | undefined): boolean {
  return (
    environment === undefined || pipeline.spec.environments.some((e) => e.name === environment)
  );
}
