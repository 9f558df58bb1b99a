/**
 * What the authorizer answers, and the parts of its judgement that are plain functions: the
 * record a claim adds, whether an approval can count (its Judge), and the answer's shapes.
 */
import type { AuthorizationClaim, AuthorizationDecision, Principal } from '../auth/identity.js';
import type { EnvironmentDecision, GateView } from '../evaluate/decisions.js';
import type { PipelineId } from '../pipeline/id.js';
import type { AuthorizationRecord } from '../pipeline/pipeline-resource.js';
import { recordedJti } from '../text/bounded-id.js';
import { display } from '../text/text.js';
import { rfc3339, rfc3339Millis } from '../time/kube-time.js';
import type { BreakGlassView } from './break-glass-access.js';

/** The 202 answer: recorded (or, for an ungated environment and a CI job, a re-check asked). */
export interface AuthorizationAnswer {
  recorded: boolean;
  pipeline: string;
  environment: string;
  revision: string;
  principal: string;
  decision: AuthorizationDecision;
  /** waiting (the gate needs more), approved (it is met: the promotion follows), rejected. */
  state: 'waiting' | 'approved' | 'rejected' | 'recheck';
  gate?: GateView;
  /** For a break-glass: where its quorum stands for this revision. */
  breakGlass?: BreakGlassView;
}

/** The answer's state for the decision an authorization leaves behind. */
export const STATES: Readonly<Record<string, AuthorizationAnswer['state'] | undefined>> = {
  WaitingApproval: 'waiting',
  Promote: 'approved',
  Rejected: 'rejected',
};

/**
 * Why an authorization was not recorded. NotFound: no such Pipeline or environment. Forbidden:
 * the gate (or the break-glass quorum, `detail` saying which) does not allow the principal.
 * Replayed: the credential's id was used already. NotWaiting: the environment is not deciding
 * on that revision (`detail` says what it waits for). Full: too many unexpired records.
 * Contended: the status kept changing under the write.
 */
export type AuthorizationRefusal =
  | { reason: 'NotFound' | 'Replayed' | 'Full' | 'Contended' }
  | { reason: 'PreviewChanged'; detail: string }
  | { reason: 'Forbidden'; detail?: string }
  | { reason: 'NotWaiting'; detail: string };

/** Undefined when the decision lets the record count for `revision`, else why not. */
export type Judge = (
  decision: EnvironmentDecision | undefined,
  revision: string,
  environment: string,
) => string | undefined;

/** An answer, or the named reason there is none; the ingress maps refusals to HTTP. */
export type AuthorizationResult =
  { ok: true; answer: AuthorizationAnswer } | { ok: false; refusal: AuthorizationRefusal };

/** The record a claim by `principal` adds. */
export function recordOf(
  principal: Principal,
  claim: AuthorizationClaim,
  now: number,
): AuthorizationRecord {
  return {
    principal: principal.name,
    kind: principal.kind,
    decision: claim.decision,
    revision: claim.revision,
    // Milliseconds: an approval given within a second of the wait it answers is ordered after
    // it (the notifications' order, a digest learnt before it), never before.
    time: rfc3339Millis(now),
    ...(principal.jti === undefined ? {} : { jti: recordedJti(principal.jti) }),
    ...(principal.expiresAt === undefined ? {} : { expiresAt: rfc3339(principal.expiresAt) }),
    ...(principal.groups.length === 0 ? {} : { groups: [...principal.groups] }),
    ...(claim.comment === undefined ? {} : { comment: claim.comment }),
    ...(claim.statement === undefined ? {} : { statement: claim.statement }),
    ...(claim.previewDigest === undefined ? {} : { previewDigest: claim.previewDigest }),
    ...(claim.combinationDigest === undefined
      ? {}
      : { combinationDigest: claim.combinationDigest }),
  };
}

/**
 * The Judge of approvals: undefined when `environment` is deciding on exactly `revision`
 * behind its gate; otherwise why not, for a NotWaiting answer (naming the revision it waits
 * for, if any).
 */
export function waitingFor(
  decision: EnvironmentDecision | undefined,
  revision: string,
  environment: string,
): string | undefined {
  if (decision === undefined) return `${environment} is not in the Pipeline`;
  const deciding = decision.gate !== undefined && decision.revision === revision;
  if (deciding && STATES[decision.outcome] !== undefined) return undefined;
  const waiting = decision.outcome === 'WaitingApproval' ? decision.revision : undefined;
  return waiting === undefined
    ? `${environment} is not waiting for an approval (${decision.reason}: ${display(decision.message, 200)})${nextStep(decision, revision)}`
    : `${environment} is waiting for ${display(waiting)}, not ${display(revision)}`;
}

/**
 * What to do when the environment decides on another revision than the one asked for: a gate
 * only ever waits for what the environment before it runs healthy, so that comes first.
 */
function nextStep(decision: EnvironmentDecision, revision: string): string {
  if (decision.revision === revision) return '';
  return `; it waits for approvals of a revision once the environment before it runs that revision healthy: roll ${display(revision)} out there first, then ask again`;
}

/** What every answer about `record` starts with. */
export function baseOf(id: PipelineId, environment: string, record: AuthorizationRecord) {
  const { revision, principal, decision } = record;
  return { pipeline: id, environment, revision, principal, decision };
}

/** A refusal for `reason`; a Forbidden one may say why. */
export function refuse(
  reason: 'NotFound' | 'Forbidden' | 'Replayed' | 'Full' | 'Contended',
  detail?: string,
) {
  const refusal = reason === 'Forbidden' && detail !== undefined ? { reason, detail } : { reason };
  return { ok: false as const, refusal };
}

/** A NotWaiting refusal saying what the environment waits for. */
export function notWaiting(detail: string) {
  return { ok: false as const, refusal: { reason: 'NotWaiting' as const, detail } };
}
