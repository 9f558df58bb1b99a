/**
 * The claim's rules, judged on the stored object whatever the decision was made on: one attempt
 * per environment at a time (no claim replaces a claim, live or past its deadline), never a
 * revision older than one the record or history shows succeeded or in flight, and a deadline
 * on every claim.
 */
import { describe, expect, it } from 'vitest';
import { CLAIM_MARGIN_MS, claimChange, claimRecord } from '../../../src/promote/claim.js';
import type {
  EnvironmentStatus,
  Pipeline,
  PromotionRecord,
} from '../../../src/pipeline/pipeline-resource.js';
import { promoteDecision, samplePipeline, T0 } from '../../support/pipeline-fixtures.js';

const iso = (ms: number) => new Date(ms).toISOString();
/** staging first ran 1.1.0 at T0 - 60 s and 1.2.0 at T0 - 30 s. */
const V110 = T0 - 60_000;
const V120 = T0 - 30_000;

function withProd(prod: EnvironmentStatus): Pipeline {
  return samplePipeline({ environments: { prod } });
}

function claimOf(basis: Pipeline, revision: string, upstreamVerifiedAt: number, attempt = 1) {
  return claimChange({
    pipeline: basis,
    decision: { ...promoteDecision('prod', revision, attempt), upstreamVerifiedAt },
    now: T0,
    instanceId: 'gw-a',
    attemptTimeoutMs: 10_000,
  });
}

const succeeded = (revision: string, verifiedAt: number): PromotionRecord => ({
  revision,
  lastAttemptedTime: iso(T0 - 20_000),
  succeeded: true,
  phase: 'Succeeded',
  attempt: 1,
  upstreamVerifiedTime: iso(verifiedAt),
});

describe('claimChange', () => {
  it('records the deadline and the revision order, and lands on an unchanged object', () => {
    const basis = withProd({ promotion: succeeded('1.1.0', V110) });
    const verdict = claimOf(basis, '1.2.0', V120)(basis);
    expect(verdict).toMatchObject({ verdict: 'Claimed' });
    const written = 'write' in verdict ? verdict.write.environments?.prod : undefined;
    expect(written?.promotion).toMatchObject({
      revision: '1.2.0',
      phase: 'Claimed',
      deadlineTime: iso(T0 + 10_000 + CLAIM_MARGIN_MS),
      upstreamVerifiedTime: iso(V120),
    });
    // The history keeps the order past the record.
    expect(written?.history?.at(-1)).toMatchObject({
      revision: '1.2.0',
      upstreamVerifiedTime: iso(V120),
    });
  });

  it.each([
    ['before its deadline', T0 + 5_000],
    ['past its deadline (it is resolved first)', T0 - 1],
  ])('never replaces a claim of another revision %s', (_, deadline) => {
    const basis = withProd({ promotion: succeeded('1.1.0', V110) });
    const stored = withProd({
      promotion: {
        revision: '1.1.5',
        lastAttemptedTime: iso(T0 - 1_000),
        succeeded: false,
        phase: 'Claimed',
        claimedBy: 'gw-b',
        deadlineTime: iso(deadline),
      },
    });
    expect(claimOf(basis, '1.2.0', V120)(stored)).toEqual({ keep: 'Lost' });
  });

  it('never claims an older revision over a newer success, even when the basis agrees', () => {
    // A decision made on stale reads over a stale object: the stored record is all that counts.
    const stored = withProd({ promotion: succeeded('1.2.0', V120) });
    expect(claimOf(stored, '1.1.0', V110)(stored)).toEqual({ keep: 'Lost' });
  });

  it('never claims an older revision over a newer success its history keeps', () => {
    const stored = withProd({
      promotion: {
        revision: '1.3.0',
        lastAttemptedTime: iso(T0 - 5_000),
        succeeded: false,
        phase: 'Failed',
        retryable: false,
      },
      history: [
        {
          revision: '1.2.0',
          startedTime: iso(T0 - 20_000),
          attempts: 1,
          succeededTime: iso(T0 - 19_000),
          upstreamVerifiedTime: iso(V120),
        },
      ],
    });
    expect(claimOf(stored, '1.1.0', V110)(stored)).toEqual({ keep: 'Lost' });
  });

  it('claims the newer revision over an older success', () => {
    const stored = withProd({ promotion: succeeded('1.1.0', V110) });
    expect(claimOf(stored, '1.2.0', V120)(stored)).toMatchObject({ verdict: 'Claimed' });
  });

  it('claims the next attempt of an abandoned claim of the same revision', () => {
    const abandoned: PromotionRecord = {
      revision: '1.2.0',
      lastAttemptedTime: iso(T0 - 60_000),
      succeeded: false,
      phase: 'Failed',
      resolution: 'Abandoned',
      attempt: 1,
      upstreamVerifiedTime: iso(V120),
    };
    const stored = withProd({ promotion: abandoned });
    expect(claimOf(stored, '1.2.0', V120, 2)(stored)).toMatchObject({ verdict: 'Claimed' });
    // ...but not an older revision over it: its delivery may have happened.
    expect(claimOf(stored, '1.1.0', V110)(stored)).toEqual({ keep: 'Lost' });
  });

  it('gives a failing strategy (no time of its own) the margin alone', () => {
    const record = claimRecord({
      pipeline: samplePipeline(),
      decision: promoteDecision('prod', '1.2.0'),
      now: T0,
      instanceId: 'gw-a',
      attemptTimeoutMs: 0,
    });
    expect(record.deadlineTime).toBe(iso(T0 + CLAIM_MARGIN_MS));
    expect(record.upstreamVerifiedTime).toBeUndefined();
  });
});
