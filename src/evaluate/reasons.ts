/**
 * The PascalCase reasons the evaluator gives, in the style of Flux's condition reasons. Status
 * writers, events and metrics key on these strings, so they are part of the public contract.
 */

/** Every reason an EnvironmentDecision may carry. */
export const Reasons = {
  /** Source: every target is Healthy at one revision. */
  Ready: 'Ready',
  /** Source: some target is not Healthy. */
  NotReady: 'NotReady',
  /** Source: targets run different revisions. */
  RevisionMismatch: 'RevisionMismatch',
  /** Source: a Healthy target reports no revision. */
  NoRevision: 'NoRevision',
  /** The environment lists no targets, so nothing in it can be verified. */
  NoTargets: 'NoTargets',
  /** A target of this environment could not be read. */
  TargetUnknown: 'TargetUnknown',
  /** A target of an earlier environment could not be read. */
  UpstreamUnknown: 'UpstreamUnknown',
  /** The previous environment has a target that is not Healthy. */
  UpstreamNotReady: 'UpstreamNotReady',
  /** The previous environment's targets run different revisions. */
  UpstreamRevisionMismatch: 'UpstreamRevisionMismatch',
  /** The previous environment is Healthy but reports no revision (or has no targets). */
  UpstreamNoRevision: 'UpstreamNoRevision',
  /** Every target runs the upstream revision and is Healthy. */
  Deployed: 'Deployed',
  /** Every target runs the upstream revision but some are not Healthy yet. */
  RollingOut: 'RollingOut',
  /** A promotion of the upstream revision already succeeded. */
  PromotionSucceeded: 'PromotionSucceeded',
  /** A pull-request promotion of the upstream revision opened a request not merged yet. */
  PullRequestOpen: 'PullRequestOpen',
  /** The pull request promoting the upstream revision was closed unmerged: it never arrives. */
  PullRequestClosed: 'PullRequestClosed',
  /**
   * A promotion is claimed and before its deadline: of the upstream revision (AlreadyPromoted),
   * or of another one, which this environment waits to see end (Waiting).
   */
  PromotionInProgress: 'PromotionInProgress',
  /**
   * The environment's record shows a newer revision (by when the upstream first ran it)
   * succeeded or in flight than the one upstream runs now: an older one is never promoted over it.
   */
  NewerRevisionPromoted: 'NewerRevisionPromoted',
  /** The targets run another revision than the last successful promotion; reported only. */
  Drifted: 'Drifted',
  /** The targets run another revision than the last successful promotion: promoting it again. */
  DriftCorrection: 'DriftCorrection',
  /** The retry budget for the upstream revision is spent. */
  RetriesExhausted: 'RetriesExhausted',
  NotRetryable: 'NotRetryable',
  /** The record's lastAttemptedTime cannot be parsed: no automatic retry until it is fixed. */
  InvalidAttemptTime: 'InvalidAttemptTime',
  /** A failed or abandoned attempt is inside its backoff window. */
  RetryBackoff: 'RetryBackoff',
  /** A failed or abandoned attempt's backoff has passed: try again. */
  RetryAfterFailure: 'RetryAfterFailure',
  /** Gated environment: the upstream revision has every approval the gate asks for. */
  Approved: 'Approved',
  /** Gated environment: waiting for approvals of the upstream revision. */
  ApprovalRequired: 'ApprovalRequired',
  /**
   * Gated environment: an approval was given for a previewed change whose digest is no longer
   * the change's now (the base branch moved, the source changed): it does not count.
   */
  PreviewChanged: 'PreviewChanged',
  /** Gated environment: an allowed approver rejected the upstream revision. */
  ApprovalRejected: 'ApprovalRejected',
  /** The upstream environment is Healthy at one revision this environment does not run. */
  UpstreamReady: 'UpstreamReady',
  /** External checks: one failed for the upstream revision; the message names it and why. */
  CheckFailed: 'CheckFailed',
  /** External checks: one could not be read, or not yet; decides nothing until it can be. */
  CheckUnknown: 'CheckUnknown',
  /** External checks: one is still running, or a passed result is being renewed. */
  CheckPending: 'CheckPending',
  /** Soak: the upstream has not yet run the revision healthy for the environment's soak time. */
  Soaking: 'Soaking',
  /** Soak: the environment's soak duration cannot be used (longer than a year); nothing moves. */
  SoakInvalid: 'SoakInvalid',
  /** Windows: inside a deny window; the message names it and the next opening. */
  InDenyWindow: 'InDenyWindow',
  /** Windows: outside every allow window; the message names the next opening. */
  OutsidePromotionWindow: 'OutsidePromotionWindow',
  /** Windows: a window's rule cannot be used (compiled or followed); nothing moves until fixed. */
  InvalidPromotionWindow: 'InvalidPromotionWindow',
  /** Halts: a stop-the-line halt holds the environment; the message says who, why and until when. */
  Halted: 'Halted',
  /** Rollback: the quorum the rollback policy asks for has asked to roll back to the revision. */
  RollbackAuthorized: 'RollbackAuthorized',
  /** Rollback: the promoted revision failed verification within the automatic window. */
  AutomaticRollback: 'AutomaticRollback',
  /** Rollback: the upstream revision was rolled back from here; held until lifted or superseded. */
  RolledBack: 'RolledBack',
  /** Rollback: the revision failed verification here or upstream; no later environment takes it. */
  FailedVerification: 'FailedVerification',
  /** Rollback: a failed verification found no earlier revision this environment ran healthy. */
  NoRollbackTarget: 'NoRollbackTarget',
  /** Train: the upstream revision is not this member's in the train's current release. */
  TrainCombination: 'TrainCombination',
  /** Train: the release waits for every member's own gates, or failed. */
  TrainGates: 'TrainGates',
  /** Train: members this one dependsOn do not yet run their release revisions healthy here. */
  TrainOrder: 'TrainOrder',
  /** Train: the release that promoted this member failed; the member goes back to what it ran. */
  TrainRollback: 'TrainRollback',
} as const;

/** One of the evaluator's reasons. */
export type EvaluationReason = (typeof Reasons)[keyof typeof Reasons];
