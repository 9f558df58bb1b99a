import { describe, expect, it } from 'vitest';
import type { PipelineStatus, PromotionRecord } from '../../../src/pipeline/pipeline-resource.js';
import { claimsPastDeadline } from '../../../src/promote/stuck-claims.js';

const NOW = Date.parse('2026-01-01T12:00:00Z');
const POLICY = { claimTimeoutMs: 600_000 };

function status(records: Record<string, PromotionRecord>): PipelineStatus {
  return {
    environments: Object.fromEntries(
      Object.entries(records).map(([env, promotion]) => [env, { promotion }]),
    ),
  };
}

function claimed(deadline: string | undefined, at = '2026-01-01T11:59:00Z'): PromotionRecord {
  return {
    revision: '1.2.3',
    attempt: 1,
    phase: 'Claimed',
    succeeded: false,
    lastAttemptedTime: at,
    ...(deadline === undefined ? {} : { deadlineTime: deadline }),
  };
}

describe('claimsPastDeadline', () => {
  it('counts Claimed records whose deadline has passed, in every Pipeline and environment', () => {
    const statuses = [
      status({
        staging: claimed('2026-01-01T11:59:59.000Z'),
        prod: claimed('2026-01-01T12:05:00.000Z'),
      }),
      status({ staging: claimed('2026-01-01T12:00:00.000Z') }),
      undefined,
    ];
    expect(claimsPastDeadline(statuses, POLICY, NOW)).toBe(2);
  });

  it('does not count concluded records, however old', () => {
    const done = { ...claimed('2026-01-01T10:00:00.000Z'), phase: 'Succeeded', succeeded: true };
    const failed = { ...claimed('2026-01-01T10:00:00.000Z'), phase: 'Failed' };
    expect(
      claimsPastDeadline(
        [status({ staging: done as PromotionRecord, prod: failed as PromotionRecord })],
        POLICY,
        NOW,
      ),
    ).toBe(0);
  });

  it('dates a claim without a deadline by its time plus the claim timeout', () => {
    const old = claimed(undefined, '2026-01-01T11:49:00Z');
    const recent = claimed(undefined, '2026-01-01T11:55:00Z');
    expect(claimsPastDeadline([status({ staging: old, prod: recent })], POLICY, NOW)).toBe(1);
  });
});
