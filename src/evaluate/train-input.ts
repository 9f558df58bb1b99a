/**
 * What the release-train gate (train-gate.ts) decides from, for one member Pipeline in one
 * environment: the train's current release there and the state of the members it dependsOn.
 */

/** A release's state, as the train's status records it. */
export type TrainReleaseState = 'Waiting' | 'Promoting' | 'Succeeded' | 'Failed';

/** The train's current release into one environment, as the gate reads it. */
export interface TrainReleaseInput {
  digest: string;
  /** Each member's revision in the combination. */
  members: Readonly<Record<string, string>>;
  state: TrainReleaseState;
  /** When the release was recorded (ms): a member promoted since was promoted by it. */
  startedAt?: number;
}

/** What the gate of one member in one environment decides from. */
export interface TrainGateInput {
  /** `namespace/name` of the train. */
  train: string;
  /** This Pipeline's name among the members. */
  member: string;
  /** The current release into the environment; absent = none recorded yet. */
  release?: TrainReleaseInput;
  /**
   * The members this one dependsOn, each with the revision every target of theirs in the
   * environment runs healthy (absent when not all healthy at one revision).
   */
  dependsOn: readonly { name: string; running?: string }[];
  /**
   * The members (this one included) whose promotions into the environment share one pull
   * request: same repository and base branch, no dependsOn among them; absent = its own.
   */
  sharedPullRequest?: readonly string[];
  /** The train's `spec.rollbackOnFailure`: a Failed release rolls back what it promoted. */
  rollbackOnFailure?: boolean;
  /**
   * The train reconciler's question "are this member's own gates met for its release revision?":
   * only the combination is checked, not the release's state nor the order.
   */
  probe?: boolean;
}
