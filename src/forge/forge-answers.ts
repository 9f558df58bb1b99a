/**
 * What a forge's HTTP answer means for a promotion: done, a failure a person must act on (bad
 * token, missing repository, refused permission: never retried), or a failure worth retrying,
 * after the time the forge asks for when it says (GitHub's and GitLab's rate-limit headers).
 */

/** The forges the pull-request strategy speaks to, as weave's CRD names them. */
export type ForgeKind = 'github' | 'gitlab';

/** A failed forge call, classified; `message` holds no token, URL credentials or body. */
export interface ForgeFailure {
  reason:
    | 'Unauthorized'
    | 'NotFound'
    | 'Forbidden'
    | 'RateLimited'
    | 'ForgeUnavailable'
    | 'Invalid'
    // Git side: no file marks the environment; the forge refused the push to the branch.
    | 'NoMarker'
    | 'BranchProtected'
    // The forge did not answer in time, or could not be reached at all.
    | 'Timeout'
    | 'Unreachable'
    // Before any call: the spec or its Secret cannot be used.
    | 'StrategyNotSupported'
    | 'RepositoryNotAllowed'
    | 'CredentialsNotFound'
    | 'CredentialsUnreadable';
  message: string;
  retryable: boolean;
  /** How long the forge asked us to wait before the next call, when it said. */
  retryAfterMs?: number;
}

/** When a rate-limited GitHub answer names no reset time, its docs say to wait a minute. */
const DEFAULT_RATE_LIMIT_WAIT_MS = 60_000;

/**
 * Seconds in a `retry-after` header (the HTTP-date form too), as ms from `now`; undefined when
 * absent or unreadable. Notifications honour it the same way (src/notify/delivery.ts).
 */
export function retryAfter(headers: Headers, now: number): number | undefined {
  const value = headers.get('retry-after');
  if (value === null) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** A reset time in epoch seconds (GitHub `x-ratelimit-reset`, GitLab `ratelimit-reset`). */
function resetAt(headers: Headers, now: number): number | undefined {
  const value = headers.get('x-ratelimit-reset') ?? headers.get('ratelimit-reset');
  if (value === null) return undefined;
  const epoch = Number(value);
  return Number.isFinite(epoch) ? Math.max(0, epoch * 1000 - now) : undefined;
}

function isRateLimited(status: number, headers: Headers): boolean {
  if (status === 429) return true;
  // GitHub answers an exhausted primary limit, and secondary limits, with 403 plus headers.
  return (
    status === 403 &&
    (headers.get('x-ratelimit-remaining') === '0' || headers.get('retry-after') !== null)
  );
}

/**
 * The failure an answer of `status` means, or undefined for a success (2xx). `what` names the
 * call in messages (e.g. "opening the pull request").
 */
export function classifyForgeAnswer(
  kind: ForgeKind,
  status: number,
  headers: Headers,
  what: string,
  now: number,
): ForgeFailure | undefined {
  if (status >= 200 && status < 300) return undefined;
  const forge = kind === 'github' ? 'GitHub' : 'GitLab';
  if (isRateLimited(status, headers)) {
    const wait = retryAfter(headers, now) ?? resetAt(headers, now) ?? DEFAULT_RATE_LIMIT_WAIT_MS;
    const message = `${forge} rate-limited ${what} (HTTP ${String(status)}); retrying in ${String(Math.ceil(wait / 1000))} s`;
    return { reason: 'RateLimited', message, retryable: true, retryAfterMs: wait };
  }
  if (status === 401)
    return permanent('Unauthorized', `${forge} refused the token ${what}: it is wrong or expired`);
  if (status === 403)
    return permanent('Forbidden', `${forge} refused ${what}: the token lacks the permission`);
  if (status === 404)
    return permanent(
      'NotFound',
      `${forge} found no repository ${what}: check the URL, or the token cannot see it`,
    );
  if (status >= 500 || status === 408) {
    const wait = retryAfter(headers, now);
    const message = `${forge} answered HTTP ${String(status)} ${what}; will retry`;
    return {
      reason: 'ForgeUnavailable',
      message,
      retryable: true,
      ...(wait === undefined ? {} : { retryAfterMs: wait }),
    };
  }
  return permanent('Invalid', `${forge} refused ${what} (HTTP ${String(status)})`);
}

function permanent(reason: ForgeFailure['reason'], message: string): ForgeFailure {
  return { reason, message, retryable: false };
}
