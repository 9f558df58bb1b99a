/**
 * The Kubernetes Event that records an authorization on its Pipeline, for `kubectl describe`
 * and for anything that watches Events (a Flux Alert, an audit pipeline).
 */
import type { EventRecord } from '../kube/ports.js';
import type { AuthorizationRecord, Pipeline } from '../pipeline/pipeline-resource.js';
import { display } from '../text/text.js';
import type { AuthorizationAnswer } from './answers.js';
import { involvedObjectOf } from '../pipeline/involved-object.js';

/** Event reasons, by what was recorded. */
export const AuthorizationReasons = {
  approve: 'ApprovalRecorded',
  reject: 'ApprovalRejected',
  ci: 'PromotionAuthorized',
  'break-glass': 'BreakGlassRecorded',
  rollback: 'RollbackRequested',
} as const;

/** The Event for one recorded authorization; a rejection and a break-glass are Warnings. */
export function authorizationEvent(
  pipeline: Pipeline,
  record: AuthorizationRecord,
  answer: AuthorizationAnswer,
): EventRecord {
  return {
    involvedObject: involvedObjectOf(pipeline),
    type: record.decision === 'approve' ? 'Normal' : 'Warning',
    reason:
      record.kind === 'ci' && record.decision === 'approve'
        ? AuthorizationReasons.ci
        : AuthorizationReasons[record.decision],
    message: messageOf(record, answer),
    annotations: {
      environment: answer.environment,
      revision: record.revision,
      principal: record.principal,
    },
  };
}

function messageOf(record: AuthorizationRecord, answer: AuthorizationAnswer): string {
  const who = display(record.principal);
  const revision = display(record.revision);
  if (record.decision === 'break-glass') {
    const glass = answer.breakGlass === undefined ? '' : ` (${answer.breakGlass.summary})`;
    const reason = display(record.comment, 256);
    return `${who} broke the glass of ${answer.environment} for ${revision}${glass}: ${reason}`;
  }
  const verb = record.decision === 'reject' ? 'rejected' : 'approved';
  const summary = answer.gate === undefined ? '' : ` (${answer.gate.summary})`;
  return `${who} ${verb} ${revision} for ${answer.environment}${summary}`;
}
