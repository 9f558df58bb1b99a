/**
 * A wait for an approval is recorded with the pending change's preview: the first one recorded
 * for the revision is kept (it is what the wait's event told), a view given one for another
 * revision records none, and the previews are asked a bounded time, shared while an ask runs,
 * and not asked again soon after one found nothing.
 */
import { describe, expect, it } from 'vitest';
import type { Evaluation, TargetStatus } from '../../../src/evaluate/decisions.js';
import type { StaleApproval } from '../../../src/evaluate/gate.js';
import { evaluatePipeline } from '../../../src/evaluation/evaluation-input.js';
import type { ChangeVerdict } from '../../../src/kube/status-writer.js';
import type { Pipeline, PipelineStatus } from '../../../src/pipeline/pipeline-resource.js';
import { viewChange, type ViewVerdict } from '../../../src/status/view-change.js';
import {
  WaitPreviews,
  type PendingWait,
  type WaitPreview,
} from '../../../src/status/wait-previews.js';
import { FakeScheduler } from '../../support/fake-scheduler.js';
import { samplePipeline, T0 } from '../../support/pipeline-fixtures.js';

const POLICY = {
  maxAttempts: 3,
  backoffBaseMs: 1000,
  backoffMaxMs: 10_000,
  claimTimeoutMs: 60_000,
};
const healthy = (revision: string): TargetStatus => ({
  location: { cluster: 'c', namespace: 'podinfo' },
  health: 'Healthy',
  revision,
  reason: 'Ready',
  message: '',
});
const reevaluate = (pipeline: Pipeline, targets: Record<string, TargetStatus[]>): Evaluation =>
  evaluatePipeline(pipeline, targets, { policy: POLICY, floors: {} }, T0);
const digestOf = (c: string) => `sha256:${c.repeat(64)}`;

/** The view where staging runs `staging` and prod (manual) `1`: prod waits for `staging`. */
function prodWaits(
  status: PipelineStatus | undefined,
  staging: string,
  previews?: Record<string, WaitPreview & { revision: string }>,
  readAt = T0,
): PipelineStatus {
  const pipeline = samplePipeline(status);
  const targets = {
    dev: [healthy(staging), healthy(staging)],
    staging: [healthy(staging)],
    prod: [healthy('1')],
  };
  const observedAt = { dev: [readAt, readAt], staging: [readAt], prod: [readAt] };
  const evaluation = reevaluate(pipeline, targets);
  const verdict: ChangeVerdict<ViewVerdict> = viewChange(
    { pipeline, targets, observedAt, evaluation },
    { now: readAt, reevaluate, ...(previews === undefined ? {} : { previews }) },
  )(pipeline);
  if (!('write' in verdict)) throw new Error('kept');
  return verdict.write;
}

describe('a wait recorded with its preview', () => {
  const first = {
    revision: '2',
    digest: digestOf('a'),
    summary: 'prod: 1 -> 2 by a Promote event',
  };

  it('records the preview given for the revision the environment waits for', () => {
    const status = prodWaits(undefined, '2', { prod: first });
    expect(status.environments?.prod?.waitingApproval).toEqual({
      revision: '2',
      since: new Date(T0).toISOString(),
      preview: { digest: first.digest, summary: first.summary },
    });
  });

  it('keeps the first recorded preview of the revision, and records none for another', () => {
    const status = prodWaits(undefined, '2', { prod: first });
    const moved = { ...first, digest: digestOf('b') };
    const again = prodWaits(status, '2', { prod: moved });
    expect(again.environments?.prod?.waitingApproval?.preview?.digest).toBe(first.digest);
    const other = prodWaits(status, '3', { prod: first }, T0 + 1_000);
    expect(other.environments?.prod?.waitingApproval).toEqual({
      revision: '3',
      since: new Date(T0 + 1_000).toISOString(),
    });
  });

  it('adds a preview to a wait recorded without one', () => {
    const bare = prodWaits(undefined, '2');
    expect(bare.environments?.prod?.waitingApproval?.preview).toBeUndefined();
    const added = prodWaits(bare, '2', { prod: first });
    expect(added.environments?.prod?.waitingApproval?.preview?.digest).toBe(first.digest);
    expect(added.environments?.prod?.waitingApproval?.since).toBe(
      bare.environments?.prod?.waitingApproval?.since,
    );
  });
});

describe('a wait recording the approvals whose change moved', () => {
  /** The view of prod waiting for 2 with `changed` approvers' approvals not counting, at `now`. */
  const stale = (principal: string, digest: string): StaleApproval => ({ principal, digest });

  function viewWith(status: PipelineStatus | undefined, changed: StaleApproval[], now: number) {
    const pipeline = samplePipeline(status);
    const targets = {
      dev: [healthy('2'), healthy('2')],
      staging: [healthy('2')],
      prod: [healthy('1')],
    };
    const observedAt = { dev: [T0, T0], staging: [T0], prod: [T0] };
    const evaluation: Evaluation = {
      decisions: [
        { environment: 'dev', outcome: 'Source', revision: '2', reason: 'Ready', message: '' },
        {
          environment: 'staging',
          outcome: 'UpToDate',
          revision: '2',
          reason: 'Deployed',
          message: '',
        },
        {
          ...{ environment: 'prod', outcome: 'WaitingApproval', revision: '2' },
          ...{ reason: 'PreviewChanged', message: '' },
          gate: {
            required: 2,
            requiredHuman: 0,
            approvedBy: [],
            summary: '',
            previewChanged: changed,
          },
        },
      ],
    };
    const verdict = viewChange(
      { pipeline, targets, observedAt, evaluation },
      { now, reevaluate: () => evaluation },
    )(pipeline);
    if (!('write' in verdict)) throw new Error('kept');
    return verdict.write.environments?.prod?.waitingApproval;
  }

  it('stamps each when first found, and keeps them when a replica does not know the change moved', () => {
    const first = viewWith(undefined, [stale('alice', 'd1')], T0);
    expect(first?.previewChanged).toEqual([
      { principal: 'alice', digest: 'd1', since: new Date(T0).toISOString() },
    ]);
    const status = { environments: { prod: { waitingApproval: first } } };
    // Another replica, whose cache does not know the new digest, counts alice's approval.
    expect(viewWith(status, [], T0 + 1_000)?.previewChanged).toEqual(first?.previewChanged);
    const more = viewWith(status, [stale('alice', 'd1'), stale('bob', 'd1')], T0 + 2_000);
    expect(more?.previewChanged).toEqual([
      { principal: 'alice', digest: 'd1', since: new Date(T0).toISOString() },
      { principal: 'bob', digest: 'd1', since: new Date(T0 + 2_000).toISOString() },
    ]);
  });

  it('records an approver again when a later approval of theirs goes stale as the change moves again', () => {
    const first = viewWith(undefined, [stale('alice', 'd1')], T0);
    const status = { environments: { prod: { waitingApproval: first } } };
    const again = viewWith(status, [stale('alice', 'd2')], T0 + 5_000);
    expect(again?.previewChanged).toEqual([
      { principal: 'alice', digest: 'd1', since: new Date(T0).toISOString() },
      { principal: 'alice', digest: 'd2', since: new Date(T0 + 5_000).toISOString() },
    ]);
  });
});

/** A preview source the test answers by hand, counting its asks. */
class HeldSource {
  readonly asks: PendingWait[] = [];
  private readonly pending: ((preview: WaitPreview | undefined) => void)[] = [];

  previewOf(_pipeline: Pipeline, wait: PendingWait): Promise<WaitPreview | undefined> {
    this.asks.push(wait);
    return new Promise((resolve) => this.pending.push(resolve));
  }

  answer(preview: WaitPreview | undefined): void {
    for (const resolve of this.pending.splice(0)) resolve(preview);
  }
}

const flush = () => new Promise((resolve) => setImmediate(resolve));
const WAIT: PendingWait = { environment: 'prod', revision: '2', attempt: 1 };
const PREVIEW: WaitPreview = { digest: digestOf('c'), summary: 'prod: 1 -> 2' };

describe('WaitPreviews', () => {
  it('gives the preview found within the bounded wait, by environment', async () => {
    const clock = new FakeScheduler(T0);
    const source = new HeldSource();
    const book = new WaitPreviews(source, clock, 3_000, 60_000);
    const found = book.previewsOf(samplePipeline(), [WAIT]);
    await flush();
    source.answer(PREVIEW);
    expect(await found).toEqual({ prod: { ...PREVIEW, revision: '2' } });
  });

  it('gives none past the bounded wait, and the late answer to the next view', async () => {
    const clock = new FakeScheduler(T0);
    const source = new HeldSource();
    const book = new WaitPreviews(source, clock, 3_000, 60_000);
    const first = book.previewsOf(samplePipeline(), [WAIT]);
    await flush();
    clock.advance(3_000);
    expect(await first).toEqual({});
    source.answer(PREVIEW);
    await flush();
    // The ask that ran late is not made again: its answer serves the next view at once.
    expect(await book.previewsOf(samplePipeline(), [WAIT])).toEqual({
      prod: { ...PREVIEW, revision: '2' },
    });
    expect(source.asks).toHaveLength(1);
  });

  it('asks again about a wait that found nothing only after the retry interval', async () => {
    const clock = new FakeScheduler(T0);
    const source = new HeldSource();
    const book = new WaitPreviews(source, clock, 3_000, 60_000);
    const first = book.previewsOf(samplePipeline(), [WAIT]);
    await flush();
    source.answer(undefined);
    expect(await first).toEqual({});
    const soon = book.previewsOf(samplePipeline(), [WAIT]);
    await flush();
    expect(await soon).toEqual({});
    expect(source.asks).toHaveLength(1);
    clock.advance(60_000);
    const later = book.previewsOf(samplePipeline(), [WAIT]);
    await flush();
    source.answer(PREVIEW);
    expect(await later).toEqual({ prod: { ...PREVIEW, revision: '2' } });
    expect(source.asks).toHaveLength(2);
  });

  it('gives a wait already recorded only a preview known by now, without waiting', async () => {
    const clock = new FakeScheduler(T0);
    const source = new HeldSource();
    const book = new WaitPreviews(source, clock, 3_000, 60_000);
    const found = book.previewsOf(samplePipeline(), [{ ...WAIT, known: true }]);
    clock.advance(0);
    expect(await found).toEqual({});
    source.answer(PREVIEW);
    await flush();
    expect(await book.previewsOf(samplePipeline(), [{ ...WAIT, known: true }])).toEqual({
      prod: { ...PREVIEW, revision: '2' },
    });
    expect(source.asks).toHaveLength(1);
  });

  it('treats a failed ask as nothing found', async () => {
    const clock = new FakeScheduler(T0);
    const book = new WaitPreviews(
      { previewOf: () => Promise.reject(new Error('forge down')) },
      clock,
      3_000,
      60_000,
    );
    expect(await book.previewsOf(samplePipeline(), [WAIT])).toEqual({});
  });
});
