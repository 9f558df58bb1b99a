/**
 * A rollback's claim: it goes back behind a newer revision (only a rollback may), records its
 * mark, sets the hold on the revision rolled back in the same write (a train's rollback none), is
 * claimed once, keeps its
 * mark through the outcome and a resolution, and its history entry tells Rollback* facts.
 */
import { describe, expect, it } from 'vitest';
import type { EnvironmentDecision } from '../../../src/evaluate/decisions.js';
import { claimChange, claimRecord } from '../../../src/promote/claim.js';
import { outcomeChange } from '../../../src/promote/outcome.js';
import { resolvedRecord } from '../../../src/promote/claim-resolution.js';
import { factsOf } from '../../../src/notify/facts.js';
import type { Pipeline, PipelineStatus } from '../../../src/pipeline/pipeline-resource.js';
import { samplePipeline, T0 } from '../../support/pipeline-fixtures.js';

/** staging promoted to 2.0.0 (succeeded, first verified upstream at T0 - 1 h). */
const promoted: PipelineStatus = {
  environments: {
    staging: {
      promotion: {
        revision: '2.0.0',
        attempt: 1,
        lastAttemptedTime: '2026-03-04T04:00:00Z',
        phase: 'Succeeded',
        succeeded: true,
        upstreamVerifiedTime: '2026-03-04T03:00:00.000Z',
      },
      history: [
        {
          revision: '2.0.0',
          startedTime: '2026-03-04T04:00:00.000Z',
          attempts: 1,
          succeededTime: '2026-03-04T04:00:01.000Z',
          upstreamVerifiedTime: '2026-03-04T03:00:00.000Z',
        },
      ],
    },
  },
};

function rollbackDecision(automatic = false): EnvironmentDecision {
  return {
    environment: 'staging',
    outcome: 'RollBack',
    revision: '1.0.0',
    attempt: 1,
    reason: automatic ? 'AutomaticRollback' : 'RollbackAuthorized',
    message: 'roll back',
    rollback: {
      from: '2.0.0',
      by: automatic ? ['promotion-gateway'] : ['alice'],
      reason: 'errors up',
      statements: automatic ? [] : ['jti-1'],
      automatic,
    },
  };
}

function claim(pipeline: Pipeline, decision: EnvironmentDecision) {
  return claimChange({ pipeline, decision, now: T0, instanceId: 'gw-a', attemptTimeoutMs: 10_000 })(
    pipeline,
  );
}

describe('a rollback claim', () => {
  it('goes back behind the newer revision, with its mark and the hold, in one write', () => {
    const pipeline = samplePipeline(promoted);
    const result = claim(pipeline, rollbackDecision());
    expect(result).toHaveProperty('verdict', 'Claimed');
    if (!('write' in result)) throw new Error('no write');
    const staging = result.write.environments?.staging;
    expect(staging?.promotion).toMatchObject({
      revision: '1.0.0',
      phase: 'Claimed',
      rollback: { from: '2.0.0', by: ['alice'], reason: 'errors up', statements: ['jti-1'] },
    });
    expect(staging?.promotion?.upstreamVerifiedTime).toBeUndefined();
    expect(staging?.holds).toEqual([
      expect.objectContaining({ revision: '2.0.0', reason: 'RolledBack', by: 'alice' }),
    ]);
    expect(staging?.history?.at(-1)).toMatchObject({
      revision: '1.0.0',
      rollback: { from: '2.0.0' },
    });
  });

  it('an automatic rollback holds the revision as failed verification', () => {
    const result = claim(samplePipeline(promoted), rollbackDecision(true));
    if (!('write' in result)) throw new Error('no write');
    expect(result.write.environments?.staging?.holds?.[0]).toMatchObject({
      revision: '2.0.0',
      reason: 'FailedVerification',
    });
  });

  it("a train's rollback records the train and holds nothing: the revision did not fail", () => {
    const decision = rollbackDecision(true);
    const rollback = { ...decision.rollback!, train: 'shop/release' };
    const result = claim(samplePipeline(promoted), { ...decision, rollback });
    if (!('write' in result)) throw new Error('no write');
    const staging = result.write.environments?.staging;
    expect(staging?.promotion?.rollback).toMatchObject({ automatic: true, train: 'shop/release' });
    expect(staging?.holds).toBeUndefined();
    expect(staging?.history?.at(-1)?.rollback).toMatchObject({ train: 'shop/release' });
  });

  it('the same promotion decision going back is refused: only a rollback may', () => {
    const { rollback: _r, ...plain } = rollbackDecision();
    const decision: EnvironmentDecision = {
      ...plain,
      outcome: 'Promote',
      upstreamVerifiedAt: Date.parse('2026-03-04T02:00:00Z'),
    };
    expect(claim(samplePipeline(promoted), decision)).toEqual({ keep: 'Lost' });
  });

  it('is claimed once: a second claim on the stored claim is lost', () => {
    const pipeline = samplePipeline(promoted);
    const first = claim(pipeline, rollbackDecision());
    if (!('write' in first)) throw new Error('no write');
    const stored = { ...pipeline, status: first.write };
    expect(claim(stored, rollbackDecision())).toEqual({ keep: 'Lost' });
  });

  it('keeps its mark through the outcome and a resolution, and tells Rollback* facts', () => {
    const pipeline = samplePipeline(promoted);
    const decision = rollbackDecision();
    const record = claimRecord({
      pipeline,
      decision,
      now: T0,
      instanceId: 'gw-a',
      attemptTimeoutMs: 10_000,
    });
    const done = outcomeChange('staging', record, { ok: true, message: 'sent' }, T0 + 1000);
    expect(done.record.rollback).toEqual(record.rollback);
    const resolved = resolvedRecord({
      environment: 'staging',
      record,
      expiredAt: T0,
      resolution: 'Abandoned',
    });
    expect(resolved.rollback).toEqual(record.rollback);
    const first = claim(pipeline, decision);
    if (!('write' in first)) throw new Error('no write');
    const written = done.change({ ...pipeline, status: first.write });
    if (!('write' in written)) throw new Error('no outcome write');
    const types = factsOf({ ...pipeline, status: written.write })
      .filter((f) => f.environment === 'staging')
      .map((f) => f.type);
    expect(types).toEqual([
      'PromotionStarted',
      'PromotionSucceeded',
      'RollbackStarted',
      'RollbackSucceeded',
    ]);
  });

  it('throws on a RollBack decision without its rollback view', () => {
    const { rollback: _r, ...bare } = rollbackDecision();
    expect(() =>
      claimRecord({
        pipeline: samplePipeline(promoted),
        decision: bare,
        now: T0,
        instanceId: 'a',
        attemptTimeoutMs: 1,
      }),
    ).toThrow(TypeError);
  });
});
