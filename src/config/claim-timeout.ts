/**
 * A `Claimed` promotion record older than promotion.retry.claimTimeoutMs counts as an abandoned
 * attempt, and any replica may then claim and run the promotion again. So the claim must
 * outlast the longest attempt a strategy can make, or a second replica delivers again while
 * the first delivery is still in flight. This module states each strategy's bound as the
 * configuration sets it, and refuses a claim timeout that does not exceed every one.
 */
import { pointerSegment, problem } from './schema.js';

/** The time settings this rule reads: a checked input's `promotion`, or a loaded config's. */
export interface PromotionTimeouts {
  retry: { claimTimeoutMs: number };
  webhooks: Readonly<Record<string, { timeoutMs: number }>>;
  pullRequest: { gitTimeoutMs: number; apiTimeoutMs: number };
}

/**
 * Git requests one pull-request attempt may make, each bounded by gitTimeoutMs: two fetches
 * (the base branch, then the promotion branch) and one push, each a ref advertisement GET sent
 * twice (isomorphic-git sends it without credentials first and again after the 401) and one
 * pack POST. See src/promote/strategies/pull-request/git-push.ts.
 */
export const PULL_REQUEST_GIT_REQUESTS = 9;

/**
 * Forge API calls one pull-request attempt may make, each bounded by apiTimeoutMs: list the
 * open requests, create one and, when another replica won that race, list again and update
 * (openOrUpdate in src/promote/strategies/pull-request/forge-client.ts).
 */
export const PULL_REQUEST_API_CALLS = 4;

/** The longest one attempt of a strategy can take, and how the configuration makes it so. */
export interface AttemptBound {
  ms: number;
  /** The fields and their values, e.g. `/promotion/webhooks/deploy/timeoutMs (15000)`. */
  fields: string;
  /** The attempt, e.g. `one webhook delivery`. */
  attempt: string;
}

/**
 * Every strategy's bound: each webhook endpoint's (one POST, aborted after its `timeoutMs`,
 * never retried within the attempt) and the pull request's (its requests one after another).
 * The notification strategy is one Kubernetes call, bounded by the client, not by config.
 */
export function attemptBounds(promotion: PromotionTimeouts): AttemptBound[] {
  const webhooks = Object.entries(promotion.webhooks).map(([name, endpoint]) => ({
    ms: endpoint.timeoutMs,
    fields: `/promotion/webhooks/${pointerSegment(name)}/timeoutMs (${endpoint.timeoutMs})`,
    attempt: 'one webhook delivery',
  }));
  const { gitTimeoutMs, apiTimeoutMs } = promotion.pullRequest;
  const ms = PULL_REQUEST_GIT_REQUESTS * gitTimeoutMs + PULL_REQUEST_API_CALLS * apiTimeoutMs;
  const git = `${PULL_REQUEST_GIT_REQUESTS} × /promotion/pullRequest/gitTimeoutMs (${gitTimeoutMs})`;
  const api = `${PULL_REQUEST_API_CALLS} × /promotion/pullRequest/apiTimeoutMs (${apiTimeoutMs})`;
  const pullRequest = {
    ms,
    fields: `${git} + ${api} = ${ms}`,
    attempt: 'one pull-request attempt',
  };
  return [...webhooks, pullRequest];
}

/** One problem per strategy bound that claimTimeoutMs does not strictly exceed, naming both. */
export function checkClaimTimeout(promotion: PromotionTimeouts): string[] {
  const { claimTimeoutMs } = promotion.retry;
  return attemptBounds(promotion)
    .filter((bound) => claimTimeoutMs <= bound.ms)
    .map((bound) =>
      problem(
        '/promotion/retry/claimTimeoutMs',
        `${claimTimeoutMs} must exceed ${bound.fields}, the longest ${bound.attempt} may take`,
      ),
    );
}
