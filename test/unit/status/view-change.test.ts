/**
 * The verified view as a status change: written once and then never while the truth is the
 * same (later reads of the same state write nothing), never touching promotion records or
 * authorizations, decided on the stored records, and never replacing a newer observation of
 * a target with an older one, whichever replica computes it and in whatever order they land.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Evaluation, TargetStatus } from '../../../src/evaluate/decisions.js';
import type { ChangeVerdict } from '../../../src/kube/status-writer.js';
import type {
  Pipeline,
  PipelineStatus,
  PromotionRecord,
} from '../../../src/pipeline/pipeline-resource.js';
import { evaluatePipeline } from '../../../src/evaluation/evaluation-input.js';
import { mergeTarget, viewChange, type ViewVerdict } from '../../../src/status/view-change.js';
import { samplePipeline, T0 } from '../../support/pipeline-fixtures.js';

const healthy = (revision: string): TargetStatus => ({
  location: { cluster: 'c', namespace: 'podinfo' },
  health: 'Healthy',
  revision,
  reason: 'Ready',
  message: '',
});
const POLICY = {
  maxAttempts: 3,
  backoffBaseMs: 1000,
  backoffMaxMs: 10_000,
  claimTimeoutMs: 60_000,
};

/** The real evaluator on a Pipeline's stored records, as the wiring gives it. */
function reevaluate(pipeline: Pipeline, targets: Record<string, TargetStatus[]>): Evaluation {
  return evaluatePipeline(pipeline, targets, { policy: POLICY, floors: {} }, T0);
}

/** A view where dev runs `dev`, the rest `rest`, every target read at `readAt`. */
function view(pipeline: Pipeline, dev: string, rest: string, readAt: number | undefined) {
  const targets = {
    dev: [healthy(dev), healthy(dev)],
    staging: [healthy(rest)],
    prod: [healthy(rest)],
  };
  const observedAt = { dev: [readAt, readAt], staging: [readAt], prod: [readAt] };
  const inputs = { pipeline, targets, observedAt, evaluation: reevaluate(pipeline, targets) };
  return viewChange(inputs, { now: T0, reevaluate });
}

function written(verdict: ChangeVerdict<ViewVerdict>): PipelineStatus {
  if (!('write' in verdict)) throw new Error(`kept: ${JSON.stringify(verdict.keep)}`);
  return verdict.write;
}

const stored = (status: PipelineStatus | undefined): Pipeline => ({
  ...samplePipeline(status),
  metadata: { ...samplePipeline().metadata, resourceVersion: '1' },
});

describe('viewChange', () => {
  it('stamps each target with its read time, and writes nothing for later reads of the same state', () => {
    const first = written(view(stored(undefined), '2', '1', T0)(stored(undefined)));
    expect(first.environments?.dev?.targets?.[0]).toMatchObject({
      revision: '2',
      ready: true,
      observedTime: new Date(T0).toISOString(),
    });
    // A minute later, same truth: the change reproduces the stored status exactly.
    const later = view(stored(first), '2', '1', T0 + 60_000)(stored(first));
    expect(written(later)).toStrictEqual(first);
  });

  it('refuses to replace a newer observation with an older one that says otherwise (Stale)', () => {
    const newer = written(view(stored(undefined), '3', '1', T0 + 5_000)(stored(undefined)));
    const older = view(stored(undefined), '2', '1', T0)(stored(newer));
    expect(older).toStrictEqual({
      keep: {
        kind: 'Stale',
        targets: [
          { environment: 'dev', index: 0 },
          { environment: 'dev', index: 1 },
        ],
      },
    });
    // A newer read that finds something else again is written.
    const newest = written(view(stored(undefined), '2', '1', T0 + 9_000)(stored(newer)));
    expect(newest.environments?.dev?.targets?.[0]?.revision).toBe('2');
  });

  it('takes its records from the stored object and decides on them', () => {
    const claimedByB: PromotionRecord = {
      revision: '2',
      attempt: 1,
      lastAttemptedTime: '2026-03-04T05:06:00Z',
      phase: 'Claimed',
      succeeded: false,
      claimedBy: 'gw-b',
    };
    const approvals = [
      {
        principal: 'a',
        kind: 'human' as const,
        decision: 'approve' as const,
        revision: '1',
        time: 't',
      },
    ];
    const now: PipelineStatus = {
      environments: { staging: { promotion: claimedByB }, prod: { approvals } },
    };
    // Computed before B's claim: it would say staging should Promote; stored, it is in progress.
    const status = written(view(stored(undefined), '2', '1', T0)(stored(now)));
    expect(status.environments?.staging?.promotion).toStrictEqual(claimedByB);
    expect(status.environments?.prod?.approvals).toStrictEqual(approvals);
    const pending = status.conditions?.find((c) => c.type === 'PromotionPending');
    expect(pending?.reason).toBe('PromotionInProgress');
  });

  it('leaves a status whose spec moved on (Outdated)', () => {
    const moved = stored(undefined);
    moved.metadata.generation = 4;
    expect(view(stored(undefined), '2', '1', T0)(moved)).toStrictEqual({
      keep: { kind: 'Outdated' },
    });
  });
});

describe('mergeTarget', () => {
  const ours = {
    clusterAppRef: { apiVersion: 'v', kind: 'HelmRelease', name: 'p' },
    ready: true,
    revision: '2',
  };
  const theirs = { ...ours, revision: '1', observedTime: '2026-03-04T05:06:07.000Z' };
  const at = Date.parse(theirs.observedTime);

  it('orders observations by their read time, and never-read ones last', () => {
    expect(mergeTarget(ours, theirs, at + 1)).toStrictEqual({
      ...ours,
      observedTime: '2026-03-04T05:06:07.001Z',
    });
    expect(mergeTarget(ours, theirs, at)).toBe('stale');
    expect(mergeTarget(ours, theirs, undefined)).toBe('stale');
    // A record written before observation times existed (weave's, or ours of old) gives way.
    expect(mergeTarget(ours, { ...theirs, observedTime: undefined }, undefined)).toStrictEqual(
      ours,
    );
    expect(mergeTarget({ ...ours, revision: '1' }, theirs, at - 5_000)).toBe(theirs);
  });

  it('only ever moves a stored observation forward in time, whatever order replicas write in', () => {
    const observation = fc.record({
      revision: fc.constantFrom('1', '2', '3'),
      at: fc.integer({ min: 0, max: 50 }),
    });
    fc.assert(
      fc.property(fc.array(observation, { minLength: 1, maxLength: 12 }), (writes) => {
        let storedRecord: typeof theirs | undefined;
        const stamps: number[] = [];
        for (const w of writes) {
          const merged = mergeTarget({ ...ours, revision: w.revision }, storedRecord, T0 + w.at);
          if (merged === 'stale' || merged === storedRecord) {
            // Refused or unchanged: an older read never replaces what is stored.
            continue;
          }
          storedRecord = merged as typeof theirs;
          stamps.push(Date.parse(storedRecord.observedTime));
        }
        // Every change is a strictly newer observation, so replicas cannot flap: at most one
        // change per distinct read time, and what is stored is never newer than any read.
        for (let i = 1; i < stamps.length; i++)
          expect(stamps[i]).toBeGreaterThan(stamps[i - 1] ?? 0);
        expect(stamps.length).toBeLessThanOrEqual(new Set(writes.map((w) => w.at)).size);
        expect(Math.max(...stamps) - T0).toBeLessThanOrEqual(Math.max(...writes.map((w) => w.at)));
      }),
    );
  });
});
