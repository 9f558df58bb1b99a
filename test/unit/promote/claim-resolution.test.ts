/**
 * Claims past their deadline, concluded from what their targets run: Observed (Succeeded) when
 * every target runs the revision, Abandoned (Failed, retryable) when not, nothing while a target
 * cannot be read; written only over the same claim, and a late outcome of the attempt itself
 * replaces an Abandoned conclusion.
 */
import { describe, expect, it } from 'vitest';
import type { TargetStatus } from '../../../src/evaluate/decisions.js';
import {
  arrivedFailures,
  concludeClaim,
  expiredClaims,
  resolutionChange,
} from '../../../src/promote/claim-resolution.js';
import { outcomeChange } from '../../../src/promote/outcome.js';
import type { Pipeline, PromotionRecord } from '../../../src/pipeline/pipeline-resource.js';
import { samplePipeline, T0 } from '../../support/pipeline-fixtures.js';

const iso = (ms: number) => new Date(ms).toISOString();
const POLICY = { claimTimeoutMs: 900_000 };
const claim: PromotionRecord = {
  revision: '1.2.0',
  attempt: 1,
  lastAttemptedTime: '2026-03-04T05:05:00Z',
  phase: 'Claimed',
  succeeded: false,
  claimedBy: 'gw-b',
  deadlineTime: iso(T0 - 1_000),
};
const at = (revision: string | undefined, health: TargetStatus['health'] = 'Healthy') => ({
  location: { cluster: 'prod', namespace: 'podinfo' },
  health,
  reason: health === 'Unknown' ? 'Unavailable' : 'Ready',
  message: '',
  ...(revision === undefined ? {} : { revision }),
});
const withClaim = (record: PromotionRecord = claim): Pipeline =>
  samplePipeline({ environments: { prod: { promotion: record } } });

describe('expiredClaims', () => {
  it('finds claims at or past their deadline, and claims without one past the claim timeout', () => {
    expect(expiredClaims(withClaim(), POLICY, T0)).toEqual([
      { environment: 'prod', record: claim, expiredAt: T0 - 1_000 },
    ]);
    expect(expiredClaims(withClaim(), POLICY, T0 - 2_000)).toEqual([]);
    const legacy = { ...claim, deadlineTime: undefined };
    const claimedAt = Date.parse('2026-03-04T05:05:00Z');
    expect(expiredClaims(withClaim(legacy), POLICY, claimedAt + 899_999)).toEqual([]);
    expect(expiredClaims(withClaim(legacy), POLICY, claimedAt + 900_000)).toHaveLength(1);
  });

  it('ignores records that are not claims', () => {
    expect(expiredClaims(withClaim({ ...claim, phase: 'Succeeded' }), POLICY, T0)).toEqual([]);
  });
});

describe('concludeClaim and resolutionChange', () => {
  const [expired] = expiredClaims(withClaim(), POLICY, T0);

  it('concludes Observed when every target runs the revision, and writes it as Succeeded', () => {
    const resolution = concludeClaim(expired!, [at('1.2.0'), at('1.2.0', 'Unhealthy')]);
    expect(resolution?.resolution).toBe('Observed');
    const verdict = resolutionChange([resolution!], T0)(withClaim());
    expect(verdict).toMatchObject({ verdict: 1 });
    const record = 'write' in verdict ? verdict.write.environments?.prod?.promotion : undefined;
    expect(record).toMatchObject({
      revision: '1.2.0',
      attempt: 1,
      phase: 'Succeeded',
      succeeded: true,
      resolution: 'Observed',
      claimedBy: 'gw-b',
    });
    expect(record?.message).toContain('every target runs 1.2.0');
    const history = 'write' in verdict ? verdict.write.environments?.prod?.history : undefined;
    expect(history?.at(-1)?.succeededTime).toBe(iso(T0));
  });

  it('concludes Abandoned when a target runs another revision; nothing while one is Unknown', () => {
    expect(concludeClaim(expired!, [at('1.2.0'), at('1.1.0')])?.resolution).toBe('Abandoned');
    expect(concludeClaim(expired!, [at('1.2.0'), at(undefined, 'Unknown')])).toBeUndefined();
    expect(concludeClaim(expired!, [])).toBeUndefined();
    const resolution = concludeClaim(expired!, [at('1.1.0')])!;
    const verdict = resolutionChange([resolution], T0)(withClaim());
    const record = 'write' in verdict ? verdict.write.environments?.prod?.promotion : undefined;
    expect(record).toMatchObject({ phase: 'Failed', resolution: 'Abandoned', succeeded: false });
    expect(record?.retryable).toBeUndefined();
  });

  it('writes nothing when the stored record is no longer that claim', () => {
    const resolution = concludeClaim(expired!, [at('1.2.0')])!;
    const moved = withClaim({ ...claim, phase: 'Succeeded', succeeded: true });
    expect(resolutionChange([resolution], T0)(moved)).toEqual({ keep: 0 });
  });

  it("lets the attempt's own late outcome replace an Abandoned conclusion, not an Observed one", () => {
    const abandoned = concludeClaim(expired!, [at('1.1.0')])!;
    const afterAbandon = resolutionChange([abandoned], T0)(withClaim());
    const stored = samplePipeline('write' in afterAbandon ? afterAbandon.write : undefined);
    const late = outcomeChange('prod', claim, { ok: true, message: 'HTTP 204' }, T0 + 1);
    expect(late.change(stored)).toMatchObject({ verdict: 'Recorded' });
    const observed = concludeClaim(expired!, [at('1.2.0')])!;
    const afterObserve = resolutionChange([observed], T0)(withClaim());
    const kept = samplePipeline('write' in afterObserve ? afterObserve.write : undefined);
    expect(late.change(kept)).toEqual({ keep: 'Superseded' });
  });
});

describe('arrivedFailures', () => {
  const failed: PromotionRecord = {
    ...claim,
    phase: 'Failed',
    message: 'WebhookTimeout: webhook endpoint deploy did not answer in time',
  };

  it('concludes a failure whose revision every target runs as Observed, and writes it as Succeeded', () => {
    const stored = withClaim(failed);
    const found = arrivedFailures(stored, { prod: [at('1.2.0')] });
    expect(found.map((r) => [r.environment, r.resolution])).toEqual([['prod', 'Observed']]);
    const verdict = resolutionChange(found, T0)(stored);
    const record = 'write' in verdict ? verdict.write.environments?.prod?.promotion : undefined;
    expect(record).toMatchObject({ phase: 'Succeeded', succeeded: true, resolution: 'Observed' });
    expect(record?.message).toContain('was recorded as failed (WebhookTimeout');
    const history = 'write' in verdict ? verdict.write.environments?.prod?.history : undefined;
    expect(history?.at(-1)?.succeededTime).toBe(iso(T0));
  });

  it('leaves a failure alone while a target runs another revision or cannot be read', () => {
    expect(arrivedFailures(withClaim(failed), { prod: [at('1.1.0')] })).toEqual([]);
    expect(arrivedFailures(withClaim(failed), { prod: [at(undefined, 'Unknown')] })).toEqual([]);
    expect(arrivedFailures(withClaim(claim), { prod: [at('1.2.0')] })).toEqual([]);
  });

  it('writes nothing when the record moved on since', () => {
    const found = arrivedFailures(withClaim(failed), { prod: [at('1.2.0')] });
    const moved = withClaim({ ...failed, attempt: 2, lastAttemptedTime: '2026-03-04T05:06:00Z' });
    expect(resolutionChange(found, T0)(moved)).toEqual({ keep: 0 });
  });
});
