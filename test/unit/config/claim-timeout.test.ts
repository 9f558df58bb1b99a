/**
 * promotion.retry.claimTimeoutMs must exceed the longest attempt of every strategy, or a second
 * replica delivers again while the first delivery is in flight: each webhook endpoint's
 * timeoutMs, and 9 Git requests plus 4 forge calls of the pull-request strategy. A claim
 * timeout at or below any of them is a problem naming both fields; the defaults hold.
 */
import { describe, expect, it } from 'vitest';
import { attemptBounds } from '../../../src/config/claim-timeout.js';
import type { ConfigInput } from '../../../src/config/input.js';
import { ConfigError, defaultConfig, loadConfig } from '../../../src/config/load.js';

const CLAIM = 'config /promotion/retry/claimTimeoutMs';
const webhook = (timeoutMs?: number) => ({
  url: 'https://deploy.example.com/promote',
  ...(timeoutMs === undefined ? {} : { timeoutMs }),
});
/** Pull-request timeouts small enough that only the webhooks decide. */
const QUICK_PULL_REQUESTS = { gitTimeoutMs: 1000, apiTimeoutMs: 100 };

function problemsOf(promotion: NonNullable<ConfigInput['promotion']>): readonly string[] {
  try {
    loadConfig({ object: { promotion }, env: {} });
    return [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.problems;
  }
}

describe('promotion.retry.claimTimeoutMs against the webhook endpoints', () => {
  it('refuses 10000 against an endpoint of 15000, naming both fields', () => {
    expect(
      problemsOf({
        retry: { claimTimeoutMs: 10_000 },
        webhooks: { deploy: webhook(15_000) },
        pullRequest: QUICK_PULL_REQUESTS,
      }),
    ).toEqual([
      `${CLAIM}: 10000 must exceed /promotion/webhooks/deploy/timeoutMs (15000), the longest one webhook delivery may take`,
    ]);
  });

  it('refuses a claim equal to the bound (strictly greater is the rule), and accepts one more', () => {
    const at = (claimTimeoutMs: number) =>
      problemsOf({
        retry: { claimTimeoutMs },
        webhooks: { deploy: webhook(15_000) },
        pullRequest: QUICK_PULL_REQUESTS,
      });
    expect(at(15_000)).toHaveLength(1);
    expect(at(15_001)).toEqual([]);
  });

  it('names every endpoint too slow for the claim, and only those; an unset timeout is the default', () => {
    const problems = problemsOf({
      retry: { claimTimeoutMs: 10_000 },
      webhooks: {
        fast: webhook(2000),
        slow: webhook(30_000),
        usual: webhook(),
        edge: webhook(10_000),
      },
      pullRequest: QUICK_PULL_REQUESTS,
    });
    expect(problems).toEqual([
      `${CLAIM}: 10000 must exceed /promotion/webhooks/slow/timeoutMs (30000), the longest one webhook delivery may take`,
      `${CLAIM}: 10000 must exceed /promotion/webhooks/edge/timeoutMs (10000), the longest one webhook delivery may take`,
    ]);
    // `usual` was given no timeout: the default 5000 is what bounds it.
    const config = defaultConfig({ promotion: { webhooks: { usual: webhook() } } });
    expect(attemptBounds(config.promotion)[0]).toMatchObject({
      ms: 5000,
      fields: '/promotion/webhooks/usual/timeoutMs (5000)',
    });
  });
});

describe('promotion.retry.claimTimeoutMs against the pull-request strategy', () => {
  it('refuses a claim within 9 Git requests and 4 forge calls, naming the three fields', () => {
    expect(
      problemsOf({
        retry: { claimTimeoutMs: 60_000 },
        pullRequest: { gitTimeoutMs: 5000, apiTimeoutMs: 5000 },
      }),
    ).toEqual([
      `${CLAIM}: 60000 must exceed 9 × /promotion/pullRequest/gitTimeoutMs (5000) + 4 × /promotion/pullRequest/apiTimeoutMs (5000) = 65000, the longest one pull-request attempt may take`,
    ]);
    expect(
      problemsOf({
        retry: { claimTimeoutMs: 65_001 },
        pullRequest: { gitTimeoutMs: 5000, apiTimeoutMs: 5000 },
      }),
    ).toEqual([]);
  });

  it('applies with no webhook at all: the pull-request settings always exist', () => {
    // The defaults (60000 and 15000) bound an attempt at 600000: the claim must exceed that.
    expect(problemsOf({ retry: { claimTimeoutMs: 600_000 } })).toEqual([
      `${CLAIM}: 600000 must exceed 9 × /promotion/pullRequest/gitTimeoutMs (60000) + 4 × /promotion/pullRequest/apiTimeoutMs (15000) = 600000, the longest one pull-request attempt may take`,
    ]);
  });
});

describe('the defaults', () => {
  it('hold: the default claim exceeds the default pull-request and webhook bounds', () => {
    const config = defaultConfig({ promotion: { webhooks: { deploy: webhook() } } });
    const { claimTimeoutMs } = config.promotion.retry;
    expect(claimTimeoutMs).toBe(900_000);
    const bounds = attemptBounds(config.promotion);
    expect(bounds.map((b) => b.ms)).toEqual([5000, 600_000]);
    expect(bounds.every((b) => claimTimeoutMs > b.ms)).toBe(true);
  });

  it('take the longest webhook timeout the schema allows (10 minutes)', () => {
    expect(problemsOf({ webhooks: { deploy: webhook(600_000) } })).toEqual([]);
  });
});
