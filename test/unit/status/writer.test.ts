import { describe, expect, it } from 'vitest';
import type { Evaluation, TargetStatus } from '../../../src/evaluate/types.js';
import type { PromotionRecord } from '../../../src/pipeline/types.js';
import { computeStatus } from '../../../src/status/pipeline-status.js';
import { writeStatusIfChanged } from '../../../src/status/writer.js';
import { FakePipelineWriter } from '../../support/fake-pipeline-writer.js';
import { samplePipeline, T0 } from '../../support/pipeline-fixtures.js';

const healthy = (revision: string): TargetStatus => ({
  location: { cluster: 'c', namespace: 'podinfo' },
  health: 'Healthy',
  revision,
  reason: 'Ready',
  message: '',
});
const targets = {
  dev: [healthy('2'), healthy('2')],
  staging: [healthy('1')],
  prod: [healthy('1')],
};
const evaluation: Evaluation = {
  decisions: [
    {
      environment: 'staging',
      outcome: 'Promote',
      revision: '2',
      attempt: 1,
      reason: 'UpstreamReady',
      message: 'promote 2',
    },
  ],
};
const claimedByB: PromotionRecord = {
  revision: '2',
  attempt: 1,
  lastAttemptedTime: '2026-03-04T05:06:00Z',
  phase: 'Claimed',
  succeeded: false,
  claimedBy: 'gw-b',
};

describe('writeStatusIfChanged', () => {
  it('writes a changed status once, then does not write at all while nothing changes', async () => {
    const writer = new FakePipelineWriter();
    const read = writer.put(samplePipeline());
    const first = await writeStatusIfChanged(
      writer,
      read,
      computeStatus({ pipeline: read, targets, evaluation, now: T0 }),
    );
    expect(first.outcome).toBe('Written');
    expect(writer.writes).toBe(1);

    const fresh = writer.peek('flux-system', 'podinfo')!;
    const later = computeStatus({ pipeline: fresh, targets, evaluation, now: T0 + 60_000 });
    const second = await writeStatusIfChanged(writer, fresh, later);
    expect(second.outcome).toBe('Unchanged');
    expect(writer.writes).toBe(1);
    expect(writer.conflicts).toBe(0);
  });

  it('writes the promotion records of the object it was given, never computed ones', async () => {
    const writer = new FakePipelineWriter();
    const read = writer.put(
      samplePipeline({ environments: { staging: { promotion: claimedByB } } }),
    );
    const status = computeStatus({ pipeline: read, targets, evaluation, now: T0 });
    // A buggy caller hands in a status with a different record and drops another.
    status.environments!.staging!.promotion = { ...claimedByB, claimedBy: 'gw-a', phase: 'Failed' };
    status.environments!.prod!.promotion = { ...claimedByB, revision: '0' };

    const result = await writeStatusIfChanged(writer, read, status);

    expect(result.outcome).toBe('Written');
    const stored = writer.peek('flux-system', 'podinfo')!.status!.environments!;
    expect(stored.staging?.promotion).toStrictEqual(claimedByB);
    expect(stored.prod).not.toHaveProperty('promotion');
  });

  it('answers Conflict and keeps a claim made by another replica after the read', async () => {
    const writer = new FakePipelineWriter();
    const read = writer.put(samplePipeline());
    const claimed = samplePipeline({ environments: { staging: { promotion: claimedByB } } });
    writer.put(claimed);

    const result = await writeStatusIfChanged(
      writer,
      read,
      computeStatus({ pipeline: read, targets, evaluation, now: T0 }),
    );

    expect(result).toStrictEqual({ outcome: 'Conflict' });
    expect(
      writer.peek('flux-system', 'podinfo')!.status!.environments!.staging!.promotion,
    ).toStrictEqual(claimedByB);
  });

  it('answers Gone for a deleted Pipeline', async () => {
    const writer = new FakePipelineWriter();
    const read = writer.put(samplePipeline());
    writer.delete('flux-system', 'podinfo');
    const result = await writeStatusIfChanged(
      writer,
      read,
      computeStatus({ pipeline: read, targets, evaluation, now: T0 }),
    );
    expect(result).toStrictEqual({ outcome: 'Gone' });
  });

  it('re-throws write errors while the Pipeline still exists', async () => {
    const writer = new FakePipelineWriter();
    const read = writer.put(samplePipeline());
    writer.beforeNextWrite(() => {
      throw new Error('connection reset');
    });
    await expect(
      writeStatusIfChanged(
        writer,
        read,
        computeStatus({ pipeline: read, targets, evaluation, now: T0 }),
      ),
    ).rejects.toThrow('connection reset');
  });
});
