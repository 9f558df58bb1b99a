import { describe, expect, it } from 'vitest';
import { claimChange, claimRecord } from '../../../src/promote/claim.js';
import { MaxRecordMessage, outcomeChange, outcomeRecord } from '../../../src/promote/outcome.js';
import type { StrategyResult } from '../../../src/promote/strategies/strategy.js';
import type { Pipeline, PromotionRecord } from '../../../src/pipeline/pipeline-resource.js';
import { FakePipelineWriter, statusWriterOver } from '../../support/fake-pipeline-writer.js';
import { promoteDecision, samplePipeline, T0 } from '../../support/pipeline-fixtures.js';

interface Claimed {
  pipeline: Pipeline;
  record: PromotionRecord;
}

async function claimed(writer: FakePipelineWriter): Promise<Claimed> {
  const read = writer.put(samplePipeline());
  const args = {
    pipeline: read,
    decision: promoteDecision('staging', '1.1.0'),
    now: T0,
    instanceId: 'gw-a',
    attemptTimeoutMs: 10_000,
  };
  const result = await statusWriterOver(writer).apply(read, claimChange(args));
  if (result.outcome !== 'Written') throw new Error('claim failed');
  return { pipeline: result.pipeline, record: claimRecord(args) };
}

/** The outcome through the one status writer, named as a promotion names it. */
async function recordOutcome(args: {
  writer: FakePipelineWriter;
  pipeline: Pipeline;
  environment: string;
  claim: PromotionRecord;
  result: StrategyResult;
  maxConflictRetries?: number;
}) {
  const policy =
    args.maxConflictRetries === undefined
      ? undefined
      : { maxAttempts: args.maxConflictRetries + 1, baseDelayMs: 1, maxDelayMs: 1 };
  const status = statusWriterOver(args.writer, [], policy);
  const { change } = outcomeChange(args.environment, args.claim, args.result, 0);
  const written = await status.apply(args.pipeline, change);
  switch (written.outcome) {
    case 'Written':
      return { outcome: 'Recorded' as const };
    case 'Kept':
      return { outcome: 'Superseded' as const };
    case 'Gone':
      return { outcome: 'Gone' as const };
    case 'Contended':
      return { outcome: 'Unrecorded' as const, attempts: written.attempts };
  }
}

/** Simulates another replica's write of the same Pipeline (e.g. a status update or a re-claim). */
function writeBehind(writer: FakePipelineWriter, change: (p: Pipeline) => void): void {
  const current = writer.peek('flux-system', 'podinfo')!;
  change(current);
  writer.put(current);
}

const stored = (writer: FakePipelineWriter) =>
  writer.peek('flux-system', 'podinfo')?.status?.environments?.staging?.promotion;

describe('recordOutcome', () => {
  it('replaces our claim with a Succeeded record carrying message and pull-request details', async () => {
    const writer = new FakePipelineWriter();
    const claim = await claimed(writer);
    const result = await recordOutcome({
      writer,
      pipeline: claim.pipeline,
      environment: 'staging',
      claim: claim.record,
      result: {
        ok: true,
        message: 'opened',
        details: { pullRequest: { state: 'open', url: 'https://x/pr/1' } },
      },
    });
    const expected: PromotionRecord = {
      revision: '1.1.0',
      lastAttemptedTime: '2026-03-04T05:06:07Z',
      attempt: 1,
      claimedBy: 'gw-a',
      deadlineTime: new Date(T0 + 15_000).toISOString(),
      phase: 'Succeeded',
      succeeded: true,
      message: 'opened',
      pullRequest: { state: 'open', url: 'https://x/pr/1' },
    };
    expect(result.outcome).toBe('Recorded');
    expect(stored(writer)).toStrictEqual(expected);
  });

  it('records a non-retryable failure with its reason and a truncated message', () => {
    const claim: PromotionRecord = {
      revision: '1',
      lastAttemptedTime: 't',
      succeeded: false,
      phase: 'Claimed',
      attempt: 1,
      claimedBy: 'gw-a',
    };
    const record = outcomeRecord(claim, {
      ok: false,
      reason: 'WebhookRejected',
      message: 'x'.repeat(5000),
      retryable: false,
    });
    expect(record.phase).toBe('Failed');
    expect(record.succeeded).toBe(false);
    expect(record.message?.startsWith('WebhookRejected: xxx')).toBe(true);
    expect(record.message).toHaveLength(MaxRecordMessage);
    expect(record.retryable).toBe(false);
    const retryable = outcomeRecord(claim, {
      ok: false,
      reason: 'WebhookFailed',
      message: 'm',
      retryable: true,
    });
    expect(retryable).not.toHaveProperty('retryable');
    expect(retryable).not.toHaveProperty('retryAfterTime');
    const held = outcomeRecord(claim, {
      ok: false,
      reason: 'RateLimited',
      message: 'm',
      retryable: true,
      retryNotBefore: Date.UTC(2026, 10, 24, 12, 30, 0),
    });
    expect(held.retryAfterTime).toBe('2026-11-24T12:30:00Z');
  });

  it('re-reads and re-applies after a conflict while the record is still ours', async () => {
    const writer = new FakePipelineWriter();
    const claim = await claimed(writer);
    // Another replica writes conditions between our claim and our outcome.
    writeBehind(writer, (p) => {
      p.status!.observedGeneration = 3;
    });

    const result = await recordOutcome({
      writer,
      pipeline: claim.pipeline,
      environment: 'staging',
      claim: claim.record,
      result: { ok: true, message: 'done' },
    });

    expect(result.outcome).toBe('Recorded');
    expect(writer.conflicts).toBe(1);
    expect(stored(writer)?.phase).toBe('Succeeded');
    // The other replica's write survived ours.
    expect(writer.peek('flux-system', 'podinfo')?.status?.observedGeneration).toBe(3);
  });

  it('leaves a record another replica re-claimed alone (Superseded)', async () => {
    const writer = new FakePipelineWriter();
    const claim = await claimed(writer);
    const theirs: PromotionRecord = {
      revision: '1.1.0',
      attempt: 2,
      lastAttemptedTime: '2026-03-04T06:00:00Z',
      phase: 'Claimed',
      succeeded: false,
      claimedBy: 'gw-b',
    };
    writeBehind(writer, (p) => {
      p.status!.environments!.staging!.promotion = theirs;
    });

    const result = await recordOutcome({
      writer,
      pipeline: claim.pipeline,
      environment: 'staging',
      claim: claim.record,
      result: { ok: true, message: 'done' },
    });

    expect(result).toStrictEqual({ outcome: 'Superseded' });
    expect(stored(writer)).toStrictEqual(theirs);
  });

  it('gives up after bounded conflicts and leaves our Claimed record for the claim timeout', async () => {
    const writer = new FakePipelineWriter();
    const claim = await claimed(writer);
    for (let i = 0; i < 10; i++) {
      writer.beforeNextWrite(() => {
        writeBehind(writer, (p) => {
          p.status!.observedGeneration = i;
        });
      });
    }

    const result = await recordOutcome({
      writer,
      pipeline: claim.pipeline,
      environment: 'staging',
      claim: claim.record,
      result: { ok: true, message: 'done' },
      maxConflictRetries: 2,
    });

    expect(result).toStrictEqual({ outcome: 'Unrecorded', attempts: 3 });
    expect(writer.conflicts).toBe(3);
    expect(stored(writer)).toStrictEqual(claim.record);
  });

  it('answers Gone when the Pipeline was deleted after the claim', async () => {
    const writer = new FakePipelineWriter();
    const claim = await claimed(writer);
    writer.delete('flux-system', 'podinfo');
    const result = await recordOutcome({
      writer,
      pipeline: claim.pipeline,
      environment: 'staging',
      claim: claim.record,
      result: { ok: true, message: 'done' },
    });
    expect(result).toStrictEqual({ outcome: 'Gone' });
  });
});
