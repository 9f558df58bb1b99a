import { describe, expect, it } from 'vitest';
import { classifyForgeAnswer } from '../../../src/forge/forge-answers.js';

const NOW = Date.UTC(2026, 10, 24, 12, 0, 0);
const h = (entries: Record<string, string> = {}) => new Headers(entries);
const nowSeconds = NOW / 1000;

describe('classifyForgeAnswer', () => {
  it.each([
    ['github', 201, h(), undefined],
    ['gitlab', 200, h(), undefined],
    [
      'github',
      403,
      h({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(nowSeconds + 90) }),
      { reason: 'RateLimited', retryable: true, retryAfterMs: 90_000 },
    ],
    [
      'github',
      403,
      h({ 'retry-after': '30' }),
      { reason: 'RateLimited', retryable: true, retryAfterMs: 30_000 },
    ],
    ['github', 429, h(), { reason: 'RateLimited', retryable: true, retryAfterMs: 60_000 }],
    [
      'gitlab',
      429,
      h({ 'retry-after': '12' }),
      { reason: 'RateLimited', retryable: true, retryAfterMs: 12_000 },
    ],
    [
      'gitlab',
      429,
      h({ 'ratelimit-reset': String(nowSeconds + 5) }),
      { reason: 'RateLimited', retryable: true, retryAfterMs: 5_000 },
    ],
    ['github', 401, h(), { reason: 'Unauthorized', retryable: false }],
    [
      'github',
      403,
      h({ 'x-ratelimit-remaining': '4000' }),
      { reason: 'Forbidden', retryable: false },
    ],
    ['gitlab', 404, h(), { reason: 'NotFound', retryable: false }],
    ['github', 422, h(), { reason: 'Invalid', retryable: false }],
    ['gitlab', 502, h(), { reason: 'ForgeUnavailable', retryable: true }],
    [
      'github',
      503,
      h({ 'retry-after': new Date(NOW + 20_000).toUTCString() }),
      { reason: 'ForgeUnavailable', retryable: true, retryAfterMs: 20_000 },
    ],
  ] as const)('%s answering %i with %o', (kind, status, headers, expected) => {
    const failure = classifyForgeAnswer(kind, status, headers, 'opening the pull request', NOW);
    if (expected === undefined) expect(failure).toBeUndefined();
    else expect(failure).toMatchObject(expected);
  });

  it('says what failed and what to do, without the token or the URL', () => {
    const failure = classifyForgeAnswer('github', 401, h(), 'opening the pull request', NOW);
    expect(failure?.message).toBe(
      'GitHub refused the token opening the pull request: it is wrong or expired',
    );
  });
});
