import { describe, expect, it } from 'vitest';
import type { EnvironmentDecision } from '../../../src/evaluate/decisions.js';
import { claimChange } from '../../../src/promote/claim.js';
import { executePromotion } from '../../../src/promote/promoter.js';
import type {
  PromotionStrategy,
  StrategyResult,
} from '../../../src/promote/strategies/strategy.js';
import type {
  Pipeline,
  PipelineStatus,
  PromotionRecord,
} from '../../../src/pipeline/pipeline-resource.js';
import { FakePipelineWriter, statusWriterOver } from '../../support/fake-pipeline-writer.js';
import { promoteDecision, samplePipeline, T0 } from '../../support/pipeline-fixtures.js';

/** The claim through the one status writer, with the outcomes these tests name. */
async function claimPromotion(args: {
  writer: FakePipelineWriter;
  pipeline: Pipeline;
  decision: EnvironmentDecision;
  now: number;
  instanceId: string;
  attemptTimeoutMs?: number;
}): Promise<
  | { outcome: 'Claimed'; pipeline: Pipeline; record: PromotionRecord | undefined }
  | { outcome: 'Conflict' }
  | { outcome: 'Gone' }
> {
  const change = claimChange({ attemptTimeoutMs: 10_000, ...args });
  const result = await statusWriterOver(args.writer).apply(args.pipeline, change);
  if (result.outcome === 'Gone') return result;
  if (result.outcome !== 'Written') return { outcome: 'Conflict' };
  const record = result.pipeline.status?.environments?.[args.decision.environment]?.promotion;
  return { outcome: 'Claimed', pipeline: result.pipeline, record };
}

/** `existingStatus` after another replica claimed staging's 1.1.0 first. */
function claimedByOther(): PipelineStatus {
  const staging = existingStatus.environments?.staging;
  const promotion: PromotionRecord = {
    revision: '1.1.0',
    attempt: 1,
    lastAttemptedTime: '2026-03-04T05:06:00Z',
    phase: 'Claimed',
    succeeded: false,
    claimedBy: 'gw-b',
  };
  return {
    ...existingStatus,
    environments: { ...existingStatus.environments, staging: { ...staging, promotion } },
  };
}

const existingStatus: PipelineStatus = {
  observedGeneration: 3,
  conditions: [
    {
      type: 'Ready',
      status: 'False',
      reason: 'TargetsNotReady',
      message: '1 of 4 targets not ready',
      lastTransitionTime: '2026-03-01T00:00:00Z',
    },
  ],
  environments: {
    dev: {
      targets: [
        { clusterAppRef: { apiVersion: 'v', kind: 'HelmRelease', name: 'podinfo' }, ready: true },
      ],
    },
    staging: {
      targets: [
        { clusterAppRef: { apiVersion: 'v', kind: 'HelmRelease', name: 'podinfo' }, ready: false },
      ],
      waitingApproval: { revision: '0.9.0' },
      promotion: { revision: '1.0.0', lastAttemptedTime: '2026-03-01T00:00:00Z', succeeded: true },
    },
    prod: {
      promotion: { revision: '0.9.0', lastAttemptedTime: '2026-02-01T00:00:00Z', succeeded: true },
    },
  },
};

function countingStrategy(result: StrategyResult = { ok: true, message: 'done' }) {
  const calls: unknown[] = [];
  const strategy: PromotionStrategy = {
    name: 'counting',
    attemptTimeoutMs: 10_000,
    preview: () => Promise.resolve({ kind: 'unavailable', reason: 'Fake', message: 'a fake' }),
    run: (ctx) => {
      calls.push(ctx);
      return Promise.resolve(result);
    },
  };
  return { strategy, calls };
}

describe('claimPromotion', () => {
  it('writes a Claimed record with second-precision time and keeps every other status field', async () => {
    const writer = new FakePipelineWriter();
    const read = writer.put(samplePipeline(existingStatus));

    const claim = await claimPromotion({
      writer,
      pipeline: read,
      decision: promoteDecision('staging', '1.1.0', 2),
      now: T0,
      instanceId: 'gw-a',
    });

    expect(claim.outcome).toBe('Claimed');
    if (claim.outcome !== 'Claimed') return;
    const expectedRecord = {
      revision: '1.1.0',
      attempt: 2,
      lastAttemptedTime: '2026-03-04T05:06:07Z',
      phase: 'Claimed',
      succeeded: false,
      claimedBy: 'gw-a',
      // The attempt's bound (10 s here) and the margin for its outcome's write.
      deadlineTime: new Date(T0 + 15_000).toISOString(),
    };
    expect(claim.record).toStrictEqual(expectedRecord);
    const stored = writer.peek('flux-system', 'podinfo');
    expect(stored?.status).toStrictEqual({
      ...existingStatus,
      environments: {
        ...existingStatus.environments,
        staging: {
          ...existingStatus.environments!.staging,
          promotion: expectedRecord,
          // The history tells the revision from the first claim it saw (here attempt 2).
          history: [{ revision: '1.1.0', startedTime: new Date(T0).toISOString(), attempts: 2 }],
        },
      },
    });
    expect(claim.pipeline).toStrictEqual(stored);
    expect(claim.pipeline.metadata.resourceVersion).not.toBe(read.metadata.resourceVersion);
    expect(writer.writes).toBe(1);
  });

  it('records what shadow gates would have held, without their messages, in the record and the history', async () => {
    const writer = new FakePipelineWriter();
    const read = writer.put(samplePipeline());
    const message = 'staging would wait: inside shadow deny window "freeze"';
    const decision = {
      ...promoteDecision('staging', '1.1.0'),
      wouldHold: [{ gate: 'window' as const, name: 'freeze', reason: 'InDenyWindow', message }],
    };
    const claim = await claimPromotion({
      writer,
      pipeline: read,
      decision,
      now: T0,
      instanceId: 'a',
    });
    if (claim.outcome !== 'Claimed') throw new Error(claim.outcome);
    const recorded = [{ gate: 'window', name: 'freeze', reason: 'InDenyWindow' }];
    expect(claim.record?.wouldHold).toStrictEqual(recorded);
    const staging = writer.peek('flux-system', 'podinfo')?.status?.environments?.staging;
    expect(staging?.history?.[0]?.wouldHold).toStrictEqual(recorded);
  });

  it('creates the status when the Pipeline has none', async () => {
    const writer = new FakePipelineWriter();
    const read = writer.put(samplePipeline());
    const claim = await claimPromotion({
      writer,
      pipeline: read,
      decision: promoteDecision('prod', '2.0.0'),
      now: T0,
      instanceId: 'gw-a',
    });
    expect(claim.outcome).toBe('Claimed');
    expect(
      writer.peek('flux-system', 'podinfo')?.status?.environments?.prod?.promotion?.revision,
    ).toBe('2.0.0');
  });

  it('answers Conflict and writes nothing when another replica claimed in between', async () => {
    const writer = new FakePipelineWriter();
    const read = writer.put(samplePipeline(existingStatus));
    writer.put(samplePipeline(claimedByOther())); // someone else claimed in between
    const before = writer.peek('flux-system', 'podinfo');

    const claim = await claimPromotion({
      writer,
      pipeline: read,
      decision: promoteDecision('staging', '1.1.0'),
      now: T0,
      instanceId: 'gw-a',
    });

    expect(claim).toStrictEqual({ outcome: 'Conflict' });
    expect(writer.writes).toBe(0);
    expect(writer.conflicts).toBe(1);
    expect(writer.peek('flux-system', 'podinfo')).toStrictEqual(before);
  });

  it('re-applies the claim over a write that left its inputs alone (a view, another environment)', async () => {
    const writer = new FakePipelineWriter();
    const read = writer.put(samplePipeline(existingStatus));
    const viewWritten: PipelineStatus = { ...existingStatus, observedGeneration: 4 };
    writer.put(samplePipeline(viewWritten));
    const claim = await claimPromotion({
      writer,
      pipeline: read,
      decision: promoteDecision('staging', '1.1.0'),
      now: T0,
      instanceId: 'gw-a',
    });
    expect(claim.outcome).toBe('Claimed');
    expect(writer.conflicts).toBe(1);
    const stored = writer.peek('flux-system', 'podinfo')?.status;
    expect(stored?.observedGeneration).toBe(4);
    expect(stored?.environments?.staging?.promotion).toMatchObject({ claimedBy: 'gw-a' });
  });

  it('does not re-apply when an approval of the environment landed in between', async () => {
    const writer = new FakePipelineWriter();
    const read = writer.put(samplePipeline(existingStatus));
    const staging = existingStatus.environments?.staging;
    const approvals = [
      {
        principal: 'bob',
        kind: 'human' as const,
        decision: 'reject' as const,
        revision: '1.1.0',
        time: '2026-03-04T05:06:00Z',
      },
    ];
    writer.put(
      samplePipeline({
        ...existingStatus,
        environments: { ...existingStatus.environments, staging: { ...staging, approvals } },
      }),
    );
    const claim = await claimPromotion({
      writer,
      pipeline: read,
      decision: promoteDecision('staging', '1.1.0'),
      now: T0,
      instanceId: 'gw-a',
    });
    expect(claim).toStrictEqual({ outcome: 'Conflict' });
    expect(writer.writes).toBe(0);
  });

  it('answers Conflict without writing when the object as read already holds that attempt', async () => {
    const writer = new FakePipelineWriter();
    const status: PipelineStatus = {
      environments: {
        staging: {
          promotion: {
            revision: '1.1.0',
            attempt: 1,
            lastAttemptedTime: '2026-03-04T05:00:00Z',
            phase: 'Claimed',
            succeeded: false,
            claimedBy: 'gw-b',
          },
        },
      },
    };
    const read = writer.put(samplePipeline(status));
    const claim = await claimPromotion({
      writer,
      pipeline: read,
      decision: promoteDecision('staging', '1.1.0', 1),
      now: T0,
      instanceId: 'gw-a',
    });
    expect(claim).toStrictEqual({ outcome: 'Conflict' });
    expect(writer.writes + writer.conflicts).toBe(0);
  });

  it('answers Gone when the Pipeline was deleted', async () => {
    const writer = new FakePipelineWriter();
    const read = writer.put(samplePipeline());
    writer.delete('flux-system', 'podinfo');
    const claim = await claimPromotion({
      writer,
      pipeline: read,
      decision: promoteDecision('staging', '1.1.0'),
      now: T0,
      instanceId: 'gw-a',
    });
    expect(claim).toStrictEqual({ outcome: 'Gone' });
  });

  it('refuses decisions that are not a complete Promote, and objects without resourceVersion', async () => {
    const writer = new FakePipelineWriter();
    const read = writer.put(samplePipeline());
    const base = { writer, pipeline: read, now: T0, instanceId: 'gw-a' };
    await expect(
      claimPromotion({
        ...base,
        decision: { ...promoteDecision('staging', '1'), outcome: 'Waiting' },
      }),
    ).rejects.toThrow(TypeError);
    const noAttempt = promoteDecision('staging', '1');
    delete noAttempt.attempt;
    await expect(claimPromotion({ ...base, decision: noAttempt })).rejects.toThrow(TypeError);
    await expect(claimPromotion({ ...base, decision: promoteDecision('qa', '1') })).rejects.toThrow(
      /not in the Pipeline spec/,
    );
    const noRv = { ...read, metadata: { ...read.metadata, resourceVersion: undefined } };
    await expect(
      claimPromotion({ ...base, pipeline: noRv, decision: promoteDecision('staging', '1') }),
    ).rejects.toThrow(/resourceVersion/);
    expect(writer.writes).toBe(0);
  });

  it('lets exactly one of two concurrent claimers win', async () => {
    const writer = new FakePipelineWriter();
    const read = writer.put(samplePipeline(existingStatus));
    const claims = await Promise.all(
      ['gw-a', 'gw-b'].map((instanceId) =>
        claimPromotion({
          writer,
          pipeline: read,
          decision: promoteDecision('staging', '1.1.0'),
          now: T0,
          instanceId,
        }),
      ),
    );
    expect(claims.map((c) => c.outcome).sort()).toStrictEqual(['Claimed', 'Conflict']);
    expect(writer.writes).toBe(1);
  });
});

describe('executePromotion and the claim', () => {
  it('never runs the strategy when the claim conflicts', async () => {
    const writer = new FakePipelineWriter();
    const read = writer.put(samplePipeline(existingStatus));
    writer.put(samplePipeline(claimedByOther()));
    const { strategy, calls } = countingStrategy();

    const result = await executePromotion({
      status: statusWriterOver(writer),
      pipeline: read,
      decision: promoteDecision('staging', '1.1.0'),
      strategy,
      now: T0,
      instanceId: 'gw-a',
    });

    expect(result.outcome).toBe('Conflict');
    expect(calls).toHaveLength(0);
  });

  it('runs the strategy exactly once across two concurrent replicas', async () => {
    const writer = new FakePipelineWriter();
    const read = writer.put(samplePipeline(existingStatus));
    const { strategy, calls } = countingStrategy();

    const results = await Promise.all(
      ['gw-a', 'gw-b'].map((instanceId) =>
        executePromotion({
          status: statusWriterOver(writer),
          pipeline: read,
          decision: promoteDecision('staging', '1.1.0'),
          strategy,
          now: T0,
          instanceId,
        }),
      ),
    );

    expect(results.map((r) => r.outcome).sort()).toStrictEqual(['Conflict', 'Promoted']);
    expect(calls).toHaveLength(1);
  });
});
