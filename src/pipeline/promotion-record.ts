/**
 * The promotion record of one environment (status.environments[env].promotion) and its
 * history entries: what the claim, the outcome and a claim's resolution write, and what the
 * order of revisions and notifications read. Part of the Pipeline resource's TypeScript view
 * (pipeline-resource.ts re-exports it).
 */

/** Phases of a promotion record (ours); weave's record has only `succeeded`. */
export type PromotionPhase = 'Claimed' | 'Succeeded' | 'Failed';

/** status.environments[env].promotion: the claim and outcome of the latest promotion attempt. */
export interface PromotionRecord {
  revision: string;
  lastAttemptedTime: string;
  succeeded: boolean;
  pullRequest?: { state: string; url: string };
  /** ours: 1 for the first attempt at this revision. */
  attempt?: number;
  /** ours */
  phase?: PromotionPhase;
  /** ours: who claimed it (gateway instance id), for diagnosing a crash between claim and outcome. */
  claimedBy?: string;
  /** ours: the outcome's message, secret-free. */
  message?: string;
  /** ours: false on a Failed attempt that retrying cannot fix; no further attempt at this revision. */
  retryable?: boolean;
  /** ours: no retry before this time (RFC 3339), as the remote asked (e.g. a forge's rate limit). */
  retryAfterTime?: string;
  /**
   * ours: when the claimed attempt must have ended (RFC 3339 with milliseconds). Until then no
   * replica replaces the claim; after it any replica resolves it (see `resolution`).
   */
  deadlineTime?: string;
  /**
   * ours: when the previous environment was first verified running this revision healthy (RFC
   * 3339 with milliseconds): the order of revisions. No claim goes to a revision first verified
   * before one this environment's record shows succeeded or in flight.
   */
  upstreamVerifiedTime?: string;
  /**
   * ours: how a claim whose outcome was not recorded by its deadline was concluded: Observed (its
   * targets ran the revision: Succeeded) or Abandoned (they did not: Failed, and retried by the
   * retry policy).
   */
  resolution?: PromotionResolution;
  /**
   * ours: which delivery of `revision` beyond the first this attempt makes (a drift correction
   * delivers it again, as a new message); absent for the first.
   */
  redelivery?: number;
}

/** ours: how a claim past its deadline was concluded; see PromotionRecord.resolution. */
export type PromotionResolution = 'Observed' | 'Abandoned';

/**
 * ours: status.environments[env].history[i], one revision's promotion: when it was first
 * claimed, how many attempts it took, and when it first failed and when it succeeded. Written
 * with the promotion record it summarizes, so it is as durable as the record; notifications and
 * the web view read the promotions a newer record has overwritten from here.
 */
export interface PromotionHistoryEntry {
  revision: string;
  /** When its first attempt was claimed (RFC 3339). */
  startedTime: string;
  attempts: number;
  /** When an attempt first failed, and why (reason: message, secret-free, truncated). */
  failedTime?: string;
  failure?: string;
  /** When it succeeded. */
  succeededTime?: string;
  /** The record's `upstreamVerifiedTime`: the revision's place in the order of revisions. */
  upstreamVerifiedTime?: string;
}
