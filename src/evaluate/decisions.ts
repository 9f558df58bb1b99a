/**
 * Inputs and outputs of the pure decision core. Nothing here knows about HTTP, Kubernetes
 * clients or clocks: callers pass verified state and `now` in, and act on the decisions out.
 */
import type {
  AuthorizationRecord,
  EnvironmentStatus,
  HaltRecord,
  PipelineSpec,
  PromotionRecord,
  RevisionHold,
} from '../pipeline/pipeline-resource.js';
import type { GateFloor, KnownDigest, StaleApproval } from './gate.js';
import type { WindowsInput } from '../windows/promotion-window.js';
import type { HealthySince } from '../pipeline/pipeline-resource.js';
import type { TrainGateInput } from './train-input.js';

/** What a check said: Passed, Failed (with why), Pending (still running), Unknown (unreadable). */
export type CheckState = 'Passed' | 'Failed' | 'Pending' | 'Unknown';

/** One check's result for one revision, as src/checks stored it. */
export interface CheckResult {
  /** The check's index in the environment's `promotion.checks`. */
  index: number;
  revision: string;
  state: CheckState;
  /** Secret-free, and stable while the answer is (no times): it goes into the status. */
  message: string;
  /** When (ms) the result stops being current; the gate asks to look again then. */
  expiresAt: number;
}

/** The operator's break-glass settings (config `approvals.breakGlass`). */
export interface BreakGlassPolicy {
  /** Distinct allowed principals that must authorize (at least 1). */
  minApprovals: number;
  /** Who may: approver names, `group:<name>`, `ci:<policy>`; empty = break-glass disabled. */
  approvers: readonly string[];
  /** How long a recorded break-glass counts, from the time it was recorded. */
  validForSeconds: number;
}

/** Where a target lives: the gateway's cluster name and the namespace of the app object. */
export interface TargetLocation {
  cluster: string;
  namespace: string;
}

/** Health of one target as read from its cluster by the gateway itself. */
export type TargetHealth = 'Healthy' | 'Unhealthy' | 'Unknown';

/**
 * The verified state of one target. `revision` is the deployed revision (HelmRelease: newest
 * `deployed` history entry's chart version; Kustomization: lastAppliedRevision).
 */
export interface TargetStatus {
  location: TargetLocation;
  health: TargetHealth;
  revision?: string;
  /** PascalCase cause, e.g. Ready, Stalled, Reconciling, StaleGeneration, NotFound, Forbidden. */
  reason: string;
  /** Secret-free human text. */
  message: string;
}

/** Retry policy for failed or abandoned promotion attempts (explicit and bounded). */
export interface RetryPolicy {
  /** Attempts allowed per (environment, revision), the first included. */
  maxAttempts: number;
  /** Wait after a failed attempt before the next, in ms: base * 2^(attempt-1), capped. */
  backoffBaseMs: number;
  backoffMaxMs: number;
  /**
   * How long a `Claimed` record written without a `deadlineTime` (by an older gateway, or
   * weave's controller) holds its environment; past it, it is an abandoned attempt.
   */
  claimTimeoutMs: number;
}

/** Everything the evaluator decides from. */
export interface EvaluationInput {
  spec: PipelineSpec;
  /** Verified status per environment, in spec order, one entry per spec target (same order). */
  targets: Record<string, TargetStatus[]>;
  /** status.environments[env].promotion as currently stored. */
  records: Record<string, PromotionRecord | undefined>;
  /** status.environments[env].approvals as currently stored. */
  authorizations?: Record<string, readonly AuthorizationRecord[] | undefined>;
  /** The gateway's approval floors, by environment name. */
  floors?: Readonly<Record<string, GateFloor | undefined>>;
  policy: RetryPolicy;
  /** Milliseconds since the epoch, supplied by the caller. */
  now: number;
  /** Promotion windows, compiled (windows/promotion-window.ts); absent = none but those the spec declares. */
  windows?: WindowsInput;
  /**
   * Since when each environment a soak waits on has run its revision healthy (healthy-since.ts:
   * the stored `healthySince` checked against this replica's reads); absent = not known.
   */
  soak?: Readonly<Record<string, HealthySince | undefined>>;
  /** External check results by environment name (checks-gate.ts); absent = none read yet. */
  checks?: Readonly<Record<string, readonly CheckResult[] | undefined>>;
  /** status.halts as stored (halts-gate.ts); absent = none. */
  halts?: readonly HaltRecord[];
  /**
   * The operator's break-glass policy (break-glass.ts); absent = disabled. The records it
   * counts are the `break-glass` ones among `authorizations`.
   */
  breakGlass?: BreakGlassPolicy;
  /**
   * Per environment, when it was first verified running, every target Healthy, the revision its
   * targets run now (ms; the stored `verified` list and this replica's reads, the earliest):
   * the order of revisions (promotion-order.ts). Absent = not known, no order is enforced.
   */
  firstVerified?: Readonly<Record<string, number | undefined>>;
  /**
   * Per environment and revision, the digest of the change promoting it would make now (from a
   * preview) and when it was learnt. An approval bound to another digest, recorded before that,
   * does not count; absent = not known, and an approval bound to a digest counts as recorded (the
   * promotion checks it before it runs).
   */
  previewDigests?: Readonly<Record<string, Readonly<Record<string, KnownDigest>> | undefined>>;
  /**
   * Per environment, the approvals its stored wait already records as stale (the revision it
   * waits for, `waitingApproval.previewChanged`): they do not count on any replica, so a replica
   * whose previews have not seen the change move agrees with the one that found it.
   */
  staleApprovals?: Readonly<
    Record<string, { revision: string; approvals: readonly StaleApproval[] } | undefined>
  >;
  /** Per environment, its stored history and `verified` list (what was promoted, what arrived). */
  histories?: Readonly<Record<string, Pick<EnvironmentStatus, 'history' | 'verified'> | undefined>>;
  /**
   * The configured approvers' names: who may roll back where an environment's rollback policy
   * names nobody (rollback.ts); absent = any person.
   */
  approvers?: readonly string[];
  /** Per environment, status.environments[env].holds as stored (rollback.ts); absent = none. */
  holds?: Readonly<Record<string, readonly RevisionHold[] | undefined>>;
  /** Per environment, its release train's gate (train-gate.ts); absent = no train gates it. */
  trains?: Readonly<Record<string, TrainGateInput | undefined>>;
}

/** What the evaluator concluded for one environment. */
export type EnvironmentOutcome =
  /** Promote `revision` to this environment now (attempt number given). */
  | 'Promote'
  /**
   * Roll this environment back to `revision`, an earlier one it ran healthy, now (attempt given;
   * `rollback` says from what, who asked and why): authorized, or automatic on a failed
   * verification.
   */
  | 'RollBack'
  /** Every target already runs the upstream revision. */
  | 'UpToDate'
  /** A promotion of `revision` was already claimed or done: wait for it to roll out. */
  | 'AlreadyPromoted'
  /**
   * Something must happen first: the upstream to be healthy at one revision, a soak, a window,
   * a check, a halt to lift, a retry's backoff, or a person to merge an open pull request.
   */
  | 'Waiting'
  /** Some target upstream or here is Unknown: decide nothing. */
  | 'Unknown'
  /** Gated: waiting for the approvals `revision` still needs. */
  | 'WaitingApproval'
  /** Gated: an allowed approver rejected `revision`; only a newer revision can move on. */
  | 'Rejected'
  /**
   * `revision` will not arrive by itself: the retry budget is spent, retrying cannot help, or
   * its pull request was closed unmerged.
   */
  | 'Failed'
  /** The first environment: it is the source of candidates, never promoted to. */
  | 'Source'
  /**
   * The targets run another revision than the last successful promotion (`revision`), and the
   * drift policy does not (or no longer) correct it: reported, nothing promoted.
   */
  | 'Drifted';

/** What one gate in `mode: Shadow` would have held, and why (evaluate/shadow-gates.ts). */
export interface ShadowHold {
  /** The gate, as the policy view names it. */
  gate: 'window' | 'soak' | 'approval' | 'check';
  /**
   * The window's or check's name; for a soak, the environment whose healthy time it counts; for
   * an approval, `approval`.
   */
  name: string;
  /** The reason the gate would have given: InDenyWindow, OutsidePromotionWindow, Soaking... */
  reason: string;
  message: string;
}

/** One environment's decision and the reason for it. */
export interface EnvironmentDecision {
  environment: string;
  outcome: EnvironmentOutcome;
  revision?: string;
  /** For Promote: which attempt this is (1-based). */
  attempt?: number;
  /** PascalCase reason, e.g. UpstreamUnknown, UpstreamNotReady, RevisionMismatch. */
  reason: string;
  message: string;
  /**
   * For Waiting after a failed attempt: earliest time (ms) the next attempt may run. For
   * AlreadyPromoted with a live claim: when the claim expires. Callers schedule re-checks on it.
   */
  retryAt?: number;
  /**
   * The message as the Pipeline status keeps it, when `message` counts time from `now` (a soak's
   * time left): a status that changed with the clock would be written at every check.
   */
  statusMessage?: string;
  /** For a gated environment deciding on `revision`: where its approvals stand. */
  gate?: GateView;
  /** For Drifted, and for a Promote that corrects a drift: what was promoted and what runs. */
  drift?: DriftView;
  /**
   * For Promote: when the upstream was first verified running `revision` (ms), the order the
   * claim records (promotion-order.ts); absent when not known.
   */
  upstreamVerifiedAt?: number;
  /** For Promote: the shadow gates that would have held it; absent when none would. */
  wouldHold?: ShadowHold[];
  /**
   * For Promote: which delivery of `revision` to this environment beyond the first this is (a
   * drift correction, and its retries); absent for the first.
   */
  redelivery?: number;
  /** For RollBack: what is rolled back, by whom and why (the claim records it). */
  rollback?: RollbackView;
  /** A train member's shared pull request (a Promote's, or a pending revision's preview's). */
  sharedPullRequest?: SharedPullRequest;
  /**
   * Inside an automatic rollback window with checks: the promoted revision whose checks are read
   * again until `until` (ms), a failure of one rolling the environment back.
   */
  verifying?: { revision: string; until: number };
}

/**
 * A train's one pull request for its members on one repository and base branch: the strategy
 * proposes every member's revision in it (train-gate.ts, docs/pull-requests.md).
 */
export interface SharedPullRequest {
  /** `namespace/name` of the train. */
  train: string;
  /** The release's combination digest. */
  digest: string;
  /** Each member in the pull request (this one included), by name, with its release revision. */
  members: Readonly<Record<string, string>>;
}

/** A rollback as a decision carries it to the claim, the status and notifications. */
export interface RollbackView {
  /** The revision rolled back (held afterwards). */
  from: string;
  /** Who asked (distinct principals), or `gateway` for an automatic rollback. */
  by: string[];
  reason: string;
  /** The ids of the statements or tokens that asked. */
  statements: string[];
  automatic: boolean;
  /** The train (`namespace/name`) whose failed release rolls the member back; such a rollback holds nothing. */
  train?: string;
}

/** A drift as decisions, the status and notifications tell it. */
export interface DriftView {
  /** The revision the last successful promotion delivered. */
  promoted: string;
  /** The distinct revisions the targets run, in target order. */
  running: string[];
  /** Whether the environment had run `promoted` (and then left it) or never did. */
  arrived: boolean;
}

/** A gate as the status and the API explain it. */
export interface GateView {
  required: number;
  requiredHuman: number;
  approvedBy: string[];
  rejectedBy?: string;
  /**
   * Allowed principals whose approval was given for a preview that no longer holds, each with
   * the digest its latest such approval was bound to.
   */
  previewChanged?: StaleApproval[];
  /** e.g. "1 of 2 approvals". */
  summary: string;
}

/** The evaluator's output: one decision per environment, in spec order. */
export interface Evaluation {
  decisions: EnvironmentDecision[];
}
