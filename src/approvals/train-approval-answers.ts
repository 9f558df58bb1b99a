/**
 * What a train approval answers (train-approvals.ts): the answer with what became of the approval
 * on each member, the refusals, and the plain functions that word them.
 */
import type { AuthorizationDecision, TrainApprovalClaim } from '../auth/identity.js';
import type { GateView } from '../evaluate/decisions.js';
import type { AuthorizationAnswer, AuthorizationRefusal } from './answers.js';

/** What became of the approval on one member. */
export interface TrainMemberAnswer {
  /** `namespace/name` of the member Pipeline. */
  pipeline: string;
  /** The member's revision in the combination. */
  revision: string;
  /**
   * recorded: recorded now; recordedBefore: this statement was recorded there already (a retry);
   * notGated: the environment has no approval gate; notWaiting: it takes no approval now.
   */
  outcome: 'recorded' | 'recordedBefore' | 'notGated' | 'notWaiting';
  /** For recorded: where the member's gate stands (waiting, approved, rejected). */
  state?: AuthorizationAnswer['state'];
  gate?: GateView;
  /** For notWaiting: why. */
  detail?: string;
}

/** The 202 answer: the approval recorded on the members that take it. */
export interface TrainApprovalAnswer {
  recorded: true;
  /** `namespace/name` of the train. */
  train: string;
  environment: string;
  combinationDigest: string;
  principal: string;
  decision: AuthorizationDecision;
  members: TrainMemberAnswer[];
}

/**
 * Why nothing was recorded: the refusals of a Pipeline's approval, and CombinationChanged (the
 * train's release into the environment is not that combination, or there is none).
 */
export type TrainApprovalRefusal =
  AuthorizationRefusal | { reason: 'CombinationChanged'; detail: string };

/** An answer, or the named reason there is none; the ingress maps refusals to HTTP. */
export type TrainApprovalResult =
  { ok: true; answer: TrainApprovalAnswer } | { ok: false; refusal: TrainApprovalRefusal };

/** The claim a member's record is made of: the train's, bound to its combination. */
export function memberClaim(claim: TrainApprovalClaim) {
  return {
    decision: claim.decision,
    combinationDigest: claim.combinationDigest,
    ...(claim.comment === undefined ? {} : { comment: claim.comment }),
    ...(claim.statement === undefined ? {} : { statement: claim.statement }),
  };
}

/** A result that records nothing, for `refusal`. */
export function refused(refusal: TrainApprovalRefusal): TrainApprovalResult {
  return { ok: false, refusal };
}

/** A digest shortened for a sentence (`sha256:` and 12 hex digits), as the train gate says it. */
export function short(digest: string): string {
  return digest.slice(0, 19);
}

/** CombinationChanged's detail: the release there now, so the approver can look again. */
export function changed(
  train: string,
  environment: string,
  release: { digest: string; state: string } | undefined,
): string {
  if (release === undefined)
    return `train ${train} has no release into ${environment} yet; no combination waits for an approval`;
  return `train ${train}'s release into ${environment} is now ${release.digest} (${release.state}); look at it and approve that combination`;
}
