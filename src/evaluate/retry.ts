/**
 * What a stored promotion record means for the upstream revision R: done, in flight, waiting
 * out a backoff, worth another attempt, or out of budget. Pure: `now` comes from the caller.
 */
import type { PromotionRecord } from '../pipeline/pipeline-resource.js';
import { Reasons } from './reasons.js';
import { display } from '../text/text.js';
import { formatTime, parseTimestamp } from '../time/kube-time.js';
import type { EnvironmentDecision, RetryPolicy } from './decisions.js';

/** A policy with a usable budget: maxAttempts below 1 or not an integer means 1 (no retries). */
export function normalisePolicy(policy: RetryPolicy): RetryPolicy {
  const max =
    Number.isSafeInteger(policy.maxAttempts) && policy.maxAttempts >= 1 ? policy.maxAttempts : 1;
  return { ...policy, maxAttempts: max };
}

/** Wait after failed attempt number `attempts` (1-based): base * 2^(attempts-1), capped at max. */
export function backoffDelay(policy: RetryPolicy, attempts: number): number {
  return Math.min(policy.backoffBaseMs * 2 ** (attempts - 1), policy.backoffMaxMs);
}

/** The lifecycle state of a record, reading weave's `succeeded`-only records too. */
export type RecordState = 'Succeeded' | 'Claimed' | 'Failed';

/**
 * State of a record. A phase this version does not know (a newer writer) is treated as Claimed,
 * so it expires into the bounded retry path instead of triggering an immediate promotion.
 */
export function recordState(record: PromotionRecord): RecordState {
  // Records come from a status anyone with write access can edit: compare exact values only.
  const phase: unknown = record.phase;
  const succeeded: unknown = record.succeeded;
  if (phase === undefined) return succeeded === true ? 'Succeeded' : 'Failed';
  if (phase === 'Succeeded' || phase === 'Failed' || phase === 'Claimed') return phase;
  return 'Claimed';
}

/** Attempts already made; an unreadable count is taken as the whole budget spent. */
export function attemptsMade(record: PromotionRecord, policy: RetryPolicy): number {
  const attempt: unknown = record.attempt;
  if (attempt === undefined) return 1;
  return Number.isSafeInteger(attempt) && (attempt as number) >= 1
    ? (attempt as number)
    : policy.maxAttempts;
}

/**
 * When a claim stops holding its environment (ms): its `deadlineTime`, or for a claim written
 * without one (by an older gateway, or weave's controller) its time plus the configured claim
 * timeout. Undefined when the record gives no usable time.
 */
export function claimExpiresAt(
  record: PromotionRecord,
  policy: Pick<RetryPolicy, 'claimTimeoutMs'>,
): number | undefined {
  const deadline = parseTimestamp(record.deadlineTime);
  if (deadline !== undefined) return deadline;
  const claimedAt = parseTimestamp(record.lastAttemptedTime);
  return claimedAt === undefined ? undefined : claimedAt + policy.claimTimeoutMs;
}

/** Whether `record` is a claim still holding its environment at `now` (an unreadable time holds). */
export function isLiveClaim(
  record: PromotionRecord | undefined,
  policy: Pick<RetryPolicy, 'claimTimeoutMs'>,
  now: number,
): boolean {
  if (record === undefined || recordState(record) !== 'Claimed') return false;
  const expiresAt = claimExpiresAt(record, policy);
  // Garbage never frees an environment: a claim without a readable time holds it.
  return expiresAt === undefined || !(now >= expiresAt);
}

interface RecordContext {
  env: string;
  revision: string;
  record: PromotionRecord;
  policy: RetryPolicy;
  now: number;
}

/**
 * The decision a record for revision R forces, or undefined when the record is about another
 * revision (or absent) and so does not bear on R. Comparisons are written so that a NaN time
 * falls on the waiting side: garbage never starts a promotion.
 */
export function decideFromRecord(
  env: string,
  revision: string,
  record: PromotionRecord | undefined,
  policy: RetryPolicy,
  now: number,
): EnvironmentDecision | undefined {
  if (record?.revision !== revision) return undefined;
  const ctx: RecordContext = { env, revision, record, policy, now };
  switch (recordState(record)) {
    case 'Succeeded':
      return decideSucceeded(ctx);
    case 'Claimed':
      return decideClaimed(ctx);
    case 'Failed':
      return decideFailed(ctx, false);
  }
}

/**
 * A succeeded promotion: done, unless it only proposed the change. A pull request still open is
 * a wait for a person to merge it, and one closed unmerged means this revision never arrives;
 * saying "succeeded" there would read as finished.
 */
function decideSucceeded(ctx: RecordContext): EnvironmentDecision {
  const { env, revision, record } = ctx;
  const request = pullRequestOf(record);
  const rev = display(revision);
  if (request?.state === 'open') {
    const openedAt = parseTimestamp(record.lastAttemptedTime);
    const when = openedAt === undefined ? '' : ` (opened at ${formatTime(openedAt)})`;
    return decision(ctx, 'Waiting', Reasons.PullRequestOpen, {
      message: `${env} waits for pull request ${request.name} to merge${when}; it promotes ${rev}`,
    });
  }
  if (request?.state === 'closed') {
    return decision(ctx, 'Failed', Reasons.PullRequestClosed, {
      message: `pull request ${request.name} promoting ${rev} to ${env} was closed without merging; ${rev} is not proposed again, a newer revision opens a new request`,
    });
  }
  const done =
    request?.state === 'merged'
      ? `pull request ${request.name} promoting ${rev} to ${env} was merged`
      : `promotion of ${rev} to ${env} succeeded`;
  return decision(ctx, 'AlreadyPromoted', Reasons.PromotionSucceeded, {
    message: `${done}; waiting for its targets to run it`,
  });
}

/**
 * The record's pull request as a person names it (`#12`, or its URL when the URL names no
 * number) and its state; undefined when the promotion opened none. Status is editable by
 * anyone with write access, so only exact strings are trusted.
 */
function pullRequestOf(record: PromotionRecord): { name: string; state: string } | undefined {
  const pr: unknown = record.pullRequest;
  if (typeof pr !== 'object' || pr === null) return undefined;
  const { url, state } = pr as { url?: unknown; state?: unknown };
  if (typeof url !== 'string' || typeof state !== 'string') return undefined;
  // GitHub's `.../pull/12`, GitLab's `.../-/merge_requests/12`.
  const number = /\/(?:pull|merge_requests)\/(\d{1,9})\/?(?:[?#].*)?$/.exec(url)?.[1];
  return { name: number === undefined ? display(url, 200) : `#${number}`, state };
}

function decideClaimed(ctx: RecordContext): EnvironmentDecision {
  const claimedAt = parseTimestamp(ctx.record.lastAttemptedTime);
  const expiresAt = claimExpiresAt(ctx.record, ctx.policy);
  if (claimedAt === undefined || expiresAt === undefined) return invalidTime(ctx);
  if (!(ctx.now >= expiresAt)) {
    return decision(ctx, 'AlreadyPromoted', Reasons.PromotionInProgress, {
      retryAt: expiresAt,
      message:
        `promotion of ${display(ctx.revision)} to ${ctx.env} was claimed at ${formatTime(claimedAt)} ` +
        `and is in progress; the claim expires at ${formatTime(expiresAt)}`,
    });
  }
  // The claimer crashed or hung between claim and outcome: that counts as a failed attempt.
  return decideFailed(ctx, true);
}

function decideFailed(ctx: RecordContext, abandoned: boolean): EnvironmentDecision {
  const attempts = attemptsMade(ctx.record, ctx.policy);
  const what =
    abandoned || ctx.record.resolution === 'Abandoned'
      ? 'was abandoned (its claim passed its deadline without an outcome)'
      : 'failed';
  const head = `promotion of ${display(ctx.revision)} to ${ctx.env} ${what} at attempt ${attempts}`;
  if (!abandoned && ctx.record.retryable === false) {
    return decision(ctx, 'Failed', Reasons.NotRetryable, {
      message: `${head}, and retrying cannot fix it; a new revision or a cleared record is needed`,
    });
  }
  if (attempts >= ctx.policy.maxAttempts) {
    return decision(ctx, 'Failed', Reasons.RetriesExhausted, {
      message: `${head}; all ${ctx.policy.maxAttempts} attempts are spent`,
    });
  }
  const attemptedAt = parseTimestamp(ctx.record.lastAttemptedTime);
  if (attemptedAt === undefined) return invalidTime(ctx);
  // The remote's own "not before" (a rate limit's reset) wins over a shorter backoff.
  const asked = parseTimestamp(ctx.record.retryAfterTime) ?? 0;
  const retryAt = Math.max(attemptedAt + backoffDelay(ctx.policy, attempts), asked);
  if (!(ctx.now >= retryAt)) {
    return decision(ctx, 'Waiting', Reasons.RetryBackoff, {
      retryAt,
      message: `${head}; next attempt not before ${formatTime(retryAt)}`,
    });
  }
  return decision(ctx, 'Promote', Reasons.RetryAfterFailure, {
    attempt: attempts + 1,
    message: `${head}; retrying (attempt ${attempts + 1} of ${ctx.policy.maxAttempts})`,
    // A retry is the same delivery again: a drift correction's retry stays a correction.
    ...redeliveryOf(ctx.record),
  });
}

// Without a readable attempt time no backoff or claim expiry can be computed; retrying anyway
// could loop, so the revision is parked as Failed until a human fixes or clears the record.
function invalidTime(ctx: RecordContext): EnvironmentDecision {
  return decision(ctx, 'Failed', Reasons.InvalidAttemptTime, {
    message:
      `the promotion record of ${ctx.env} for ${display(ctx.revision)} has an unreadable lastAttemptedTime; ` +
      'not retrying automatically until the record is corrected or cleared',
  });
}

/** The record's redelivery count as a decision carries it (absent for a first delivery). */
export function redeliveryOf(record: PromotionRecord): { redelivery?: number } {
  const n: unknown = record.redelivery;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 1 ? { redelivery: n } : {};
}

function decision(
  ctx: RecordContext,
  outcome: EnvironmentDecision['outcome'],
  reason: string,
  extra: { message: string; attempt?: number; retryAt?: number; redelivery?: number },
): EnvironmentDecision {
  return { environment: ctx.env, outcome, revision: ctx.revision, reason, ...extra };
}
