/**
 * The decision of a gated environment whose upstream is ready at `revision`: it promotes only
 * what the gate's recorded approvals of exactly that revision cover, and an approval bound to a
 * preview digest other than the change's now does not count (reason PreviewChanged).
 */
import type { PipelineEnvironment } from '../pipeline/pipeline-resource.js';
import { display } from '../text/text.js';
import type { EnvironmentDecision, EvaluationInput } from './decisions.js';
import { missing, tally, type Gate } from './gate.js';
import { Reasons } from './reasons.js';

/** A gated environment: promote only what the gate's approvals cover, for exactly `revision`. */
export function decideGated(
  input: EvaluationInput,
  env: PipelineEnvironment,
  gate: Gate,
  ready: string,
  revision: string,
): EnvironmentDecision {
  const known = input.previewDigests?.[env.name]?.[revision];
  const recorded = input.staleApprovals?.[env.name];
  const stale = recorded?.revision === revision ? recorded.approvals : [];
  const counted = tally(gate, input.authorizations?.[env.name] ?? [], revision, known, stale);
  const summary = missing(gate, counted);
  const changed = counted.previewChanged;
  const base = {
    environment: env.name,
    revision,
    gate: {
      required: gate.minApprovals,
      requiredHuman: gate.minHumanApprovals,
      approvedBy: counted.approvedBy,
      ...(counted.rejectedBy === undefined ? {} : { rejectedBy: counted.rejectedBy }),
      ...(changed.length === 0 ? {} : { previewChanged: changed }),
      summary,
    },
  };
  const rev = display(revision);
  if (counted.rejectedBy !== undefined) {
    return {
      ...base,
      outcome: 'Rejected',
      reason: Reasons.ApprovalRejected,
      message: `${ready}; ${display(counted.rejectedBy)} rejected ${rev} for ${env.name}; a newer revision is needed`,
    };
  }
  if (counted.satisfied) {
    return {
      ...base,
      outcome: 'Promote',
      attempt: 1,
      reason: Reasons.Approved,
      message: `${ready}; promoting ${env.name} (approved: ${summary})`,
    };
  }
  if (changed.length > 0) {
    const who = changed.map((s) => display(s.principal)).join(', ');
    return {
      ...base,
      outcome: 'WaitingApproval',
      reason: Reasons.PreviewChanged,
      message: `${ready}; the change to ${env.name} is no longer the one ${who} approved (its preview changed); ${env.name} needs approval of ${rev}: ${summary}`,
    };
  }
  return {
    ...base,
    outcome: 'WaitingApproval',
    reason: Reasons.ApprovalRequired,
    message: `${ready}; ${env.name} needs approval of ${rev}: ${summary}`,
  };
}
