/**
 * The Kubernetes Event that records an authorization on its Pipeline, for `kubectl describe`
 * and for anything that watches Events (a Flux Alert, an audit pipeline).
 */
import type { EventRecord } from '../kube/ports.js';
import type { AuthorizationRecord, Pipeline } from '../pipeline/pipeline-resource.js';
import { display } from '../pipeline/text.js';
import type { AuthorizationAnswer } from './authorizer.js';
import { involvedObjectOf } from '../pipeline/involved-object.js';

/** Event reasons, by what was recorded. */
export const AuthorizationReasons = {
  approve: 'ApprovalRecorded',
  reject: 'ApprovalRejected',
  ci: 'PromotionAuthorized',
} as const;

/** The Event for one recorded authorization. */
export function authorizationEvent(
  pipeline: Pipeline,
  record: AuthorizationRecord,
  answer: AuthorizationAnswer,
): EventRecord {
  const verb = record.decision === 'reject' ? 'rejected' : 'approved';
  const summary = answer.gate === undefined ? '' : ` (${answer.gate.summary})`;
  return {
    involvedObject: involvedObjectOf(pipeline),
    type: record.decision === 'reject' ? 'Warning' : 'Normal',
    reason:
      record.kind === 'ci' && record.decision === 'approve'
        ? AuthorizationReasons.ci
        : AuthorizationReasons[record.decision],
    message: `${display(record.principal)} ${verb} ${display(record.revision)} for ${answer.environment}${summary}`,
    annotations: {
      environment: answer.environment,
      revision: record.revision,
      principal: record.principal,
    },
  };
}
