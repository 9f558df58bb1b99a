import { describe, expect, it } from 'vitest';
import { executePromotion } from '../../../src/promote/promoter.js';
import { notificationStrategy } from '../../../src/promote/strategies/notification.js';
import type {
  PromotionStrategy,
  StrategyResult,
} from '../../../src/promote/strategies/strategy.js';
import { FakePipelineWriter, statusWriterOver } from '../../support/fake-pipeline-writer.js';
import { promoteDecision, samplePipeline, T0 } from '../../support/pipeline-fixtures.js';

function counting(run: () => Promise<StrategyResult>) {
  let calls = 0;
  const strategy: PromotionStrategy = {
    name: 'counting',
    attemptTimeoutMs: 10_000,
    preview: () => Promise.resolve({ kind: 'unavailable', reason: 'Fake', message: 'a fake' }),
    run: () => {
      calls++;
      return run();
    },
  };
  return { strategy, calls: () => calls };
}

const base = (writer: FakePipelineWriter) => ({
  status: statusWriterOver(writer),
  pipeline: writer.put(samplePipeline()),
  decision: promoteDecision('staging', '1.1.0'),
  now: T0,
  instanceId: 'gw-a',
});

describe('executePromotion', () => {
  it("hands a train member's shared pull request to the strategy with the claimed revision", async () => {
    const writer = new FakePipelineWriter();
    const seen: unknown[] = [];
    const strategy: PromotionStrategy = {
      name: 'recording',
      attemptTimeoutMs: 10_000,
      preview: () => Promise.resolve({ kind: 'unavailable', reason: 'Fake', message: 'a fake' }),
      run: (ctx) => {
        seen.push(ctx.sharedPullRequest);
        return Promise.resolve({ ok: true, message: 'done' });
      },
    };
    const sharedPullRequest = {
      train: 'flux-system/release',
      digest: `sha256:${'d'.repeat(64)}`,
      members: { podinfo: '1.1.0', api: '2.0.0' },
    };
    const args = base(writer);
    const result = await executePromotion({
      ...args,
      decision: { ...args.decision, sharedPullRequest },
      strategy,
    });
    expect(result.outcome).toBe('Promoted');
    expect(seen).toEqual([sharedPullRequest]);
  });

  it('claims, runs the notification strategy and records success', async () => {
    const writer = new FakePipelineWriter();
    const result = await executePromotion({
      ...base(writer),
      strategy: notificationStrategy(writer, 10_000),
    });

    expect(result.outcome).toBe('Promoted');
    expect(writer.events).toHaveLength(1);
    const record = writer.peek('flux-system', 'podinfo')?.status?.environments?.staging?.promotion;
    expect(record).toMatchObject({
      revision: '1.1.0',
      attempt: 1,
      phase: 'Succeeded',
      succeeded: true,
    });
    if (result.outcome === 'Promoted')
      expect(result.pipeline).toStrictEqual(writer.peek('flux-system', 'podinfo'));
    expect(writer.writes).toBe(2);
  });

  it('runs nothing when the stored object does not keep the claim (a CRD that prunes it)', async () => {
    const writer = new FakePipelineWriter();
    // weave-gitops' own CRD keeps targets but drops the promotion records.
    writer.prune = (status) => {
      const environments = Object.fromEntries(
        Object.entries(status?.environments ?? {}).map(([name, env]) => {
          const { promotion: _dropped, ...kept } = env;
          return [name, kept];
        }),
      );
      return { ...status, environments };
    };
    const { strategy, calls } = counting(() => Promise.resolve({ ok: true, message: 'done' }));
    const result = await executePromotion({ ...base(writer), strategy });
    expect(result.outcome).toBe('Unkept');
    expect(calls()).toBe(0);
    expect(writer.writes).toBe(1);
    // A CRD that keeps the record but drops some of its fields does not keep it either.
    const partial = new FakePipelineWriter();
    partial.prune = (status) => {
      const staging = status?.environments?.staging;
      const { claimedBy: _dropped, ...promotion } = staging?.promotion ?? {
        revision: '',
        lastAttemptedTime: '',
        succeeded: false,
      };
      return {
        ...status,
        environments: { ...status?.environments, staging: { ...staging, promotion } },
      };
    };
    const again = await executePromotion({ ...base(partial), strategy });
    expect(again.outcome).toBe('Unkept');
    expect(calls()).toBe(0);
  });

  it('records a failed strategy as Failed', async () => {
    const writer = new FakePipelineWriter();
    const { strategy, calls } = counting(() =>
      Promise.resolve({
        ok: false,
        reason: 'WebhookRejected',
        message: 'HTTP 400',
        retryable: false,
      }),
    );
    const result = await executePromotion({ ...base(writer), strategy });
    expect(result.outcome).toBe('Failed');
    expect(calls()).toBe(1);
    const record = writer.peek('flux-system', 'podinfo')?.status?.environments?.staging?.promotion;
    expect(record).toMatchObject({
      phase: 'Failed',
      succeeded: false,
      message: 'WebhookRejected: HTTP 400',
    });
  });

  it('turns a throwing strategy into a retryable failure without its error text', async () => {
    const writer = new FakePipelineWriter();
    const { strategy } = counting(() => Promise.reject(new Error('token=hunter2')));
    const result = await executePromotion({ ...base(writer), strategy });
    expect(result.outcome).toBe('Failed');
    const record = writer.peek('flux-system', 'podinfo')?.status?.environments?.staging?.promotion;
    expect(record?.message).toBe('StrategyError: the counting strategy failed unexpectedly');
    expect(JSON.stringify(writer.peek('flux-system', 'podinfo'))).not.toContain('hunter2');
  });

  it('does not re-run the strategy when the outcome cannot be written; the claim stays', async () => {
    const writer = new FakePipelineWriter();
    const { strategy, calls } = counting(() => Promise.resolve({ ok: true, message: 'done' }));
    const args = base(writer);
    // The outcome write fails at the transport (the Pipeline still exists).
    writer.beforeNextWrite(() => undefined); // the claim
    writer.beforeNextWrite(() => {
      throw new Error('connection reset');
    });

    const result = await executePromotion({ ...args, strategy });

    expect(result.outcome).toBe('Unrecorded');
    expect(calls()).toBe(1);
    const record = writer.peek('flux-system', 'podinfo')?.status?.environments?.staging?.promotion;
    expect(record?.phase).toBe('Claimed');
    // A second call on the stale read cannot claim the same attempt again.
    const again = await executePromotion({ ...args, strategy });
    expect(again.outcome).toBe('Conflict');
    expect(calls()).toBe(1);
  });

  it('answers Superseded when another replica re-claimed while the strategy ran', async () => {
    const writer = new FakePipelineWriter();
    const args = base(writer);
    const { strategy } = counting(() => {
      const current = writer.peek('flux-system', 'podinfo')!;
      current.status!.environments!.staging!.promotion = {
        revision: '1.1.0',
        attempt: 2,
        lastAttemptedTime: '2026-03-04T06:00:00Z',
        phase: 'Claimed',
        succeeded: false,
        claimedBy: 'gw-b',
      };
      writer.put(current);
      return Promise.resolve({ ok: true, message: 'done' });
    });
    const result = await executePromotion({ ...args, strategy });
    expect(result.outcome).toBe('Superseded');
    const record = writer.peek('flux-system', 'podinfo')?.status?.environments?.staging?.promotion;
    expect(record?.claimedBy).toBe('gw-b');
  });
});
