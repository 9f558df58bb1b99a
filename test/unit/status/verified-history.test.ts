/**
 * `status.environments[env].verified`: when each revision was first verified in an environment.
 * Written by the verified view once every target runs the revision ready, from the records'
 * observation times; then never again while the state is the same (no idle write); never moved
 * later, moved earlier when a replica shows an earlier observation; bounded to 20 entries.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Evaluation, TargetStatus } from '../../../src/evaluate/decisions.js';
import type { ChangeVerdict } from '../../../src/kube/status-writer.js';
import type {
  Pipeline,
  PipelineStatus,
  TargetStatusRecord,
} from '../../../src/pipeline/pipeline-resource.js';
import { evaluatePipeline } from '../../../src/evaluation/evaluation-input.js';
import {
  MAX_VERIFIED,
  verifiedAfter,
  type VerifiedRecord,
} from '../../../src/status/verified-history.js';
import { viewChange, type ViewVerdict } from '../../../src/status/view-change.js';
import { samplePipeline, T0 } from '../../support/pipeline-fixtures.js';

const iso = (ms: number): string => new Date(ms).toISOString();
const POLICY = {
  maxAttempts: 3,
  backoffBaseMs: 1000,
  backoffMaxMs: 10_000,
  claimTimeoutMs: 60_000,
};

const record = (revision: string, at: number, ready = true): TargetStatusRecord => ({
  clusterAppRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'podinfo' },
  ready,
  revision,
  observedTime: iso(at),
});

describe('verifiedAfter', () => {
  it('adds a revision once every target runs it ready, at the latest of their observations', () => {
    const list = verifiedAfter(undefined, [record('2', T0), record('2', T0 + 500)]);
    expect(list).toStrictEqual([{ revision: '2', time: iso(T0 + 500) }]);
  });

  it('adds nothing while targets disagree, one is not ready, or a time is missing', () => {
    const stored: VerifiedRecord[] = [{ revision: '1', time: iso(T0) }];
    const cases: TargetStatusRecord[][] = [
      [record('2', T0), record('1', T0)],
      [record('2', T0), record('2', T0, false)],
      [record('2', T0), { ...record('2', T0), observedTime: undefined }],
      [],
    ];
    for (const records of cases) expect(verifiedAfter(stored, records)).toBe(stored);
  });

  it('keeps the same list object when it already knows the revision at that time or earlier', () => {
    const stored: VerifiedRecord[] = [{ revision: '2', time: iso(T0) }];
    expect(verifiedAfter(stored, [record('2', T0)])).toBe(stored);
    // A later observation of the same revision (a blip, then ready again) moves nothing.
    expect(verifiedAfter(stored, [record('2', T0 + 60_000)])).toBe(stored);
  });

  it('moves a recorded time earlier, never later, and keeps the list in time order', () => {
    const stored: VerifiedRecord[] = [
      { revision: '1', time: iso(T0) },
      { revision: '2', time: iso(T0 + 10_000) },
    ];
    expect(verifiedAfter(stored, [record('2', T0 - 5_000)])).toStrictEqual([
      { revision: '2', time: iso(T0 - 5_000) },
      { revision: '1', time: iso(T0) },
    ]);
  });

  it(`keeps at most ${String(MAX_VERIFIED)} entries, the oldest dropped`, () => {
    let list: readonly VerifiedRecord[] | undefined;
    for (let i = 0; i < 25; i++) list = verifiedAfter(list, [record(`1.0.${String(i)}`, T0 + i)]);
    expect(list).toHaveLength(MAX_VERIFIED);
    expect(list?.[0]?.revision).toBe('1.0.5');
    expect(list?.at(-1)?.revision).toBe('1.0.24');
  });

  it('two replicas applying their observations in either order agree: the earliest wins', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('1', '2', '3'), fc.integer({ min: 0, max: 1e6 })), {
          minLength: 1,
          maxLength: 12,
        }),
        (observations) => {
          const apply = (order: typeof observations) =>
            order.reduce<readonly VerifiedRecord[] | undefined>(
              (list, [rev, at]) => verifiedAfter(list, [record(rev, T0 + at)]),
              undefined,
            );
          const forward = apply(observations);
          const backward = apply([...observations].reverse());
          expect(forward).toStrictEqual(backward);
          for (const [rev] of observations) {
            const earliest = Math.min(...observations.filter(([r]) => r === rev).map(([, t]) => t));
            expect(forward?.find((e) => e.revision === rev)?.time).toBe(iso(T0 + earliest));
          }
        },
      ),
    );
  });
});

const healthy = (revision: string): TargetStatus => ({
  location: { cluster: 'c', namespace: 'podinfo' },
  health: 'Healthy',
  revision,
  reason: 'Ready',
  message: '',
});

function reevaluate(pipeline: Pipeline, targets: Record<string, TargetStatus[]>): Evaluation {
  return evaluatePipeline(pipeline, targets, { policy: POLICY, floors: {} }, T0);
}

const stored = (status: PipelineStatus | undefined): Pipeline => ({
  ...samplePipeline(status),
  metadata: { ...samplePipeline().metadata, resourceVersion: '1' },
});

/** One replica's view: dev at `dev`, the rest at '1', every target read at `readAt`. */
function view(pipeline: Pipeline, dev: string, readAt: number) {
  const targets = {
    dev: [healthy(dev), healthy(dev)],
    staging: [healthy('1')],
    prod: [healthy('1')],
  };
  const observedAt = { dev: [readAt, readAt], staging: [readAt], prod: [readAt] };
  const inputs = { pipeline, targets, observedAt, evaluation: reevaluate(pipeline, targets) };
  return viewChange(inputs, { now: readAt, reevaluate });
}

function written(verdict: ChangeVerdict<ViewVerdict>): PipelineStatus {
  if (!('write' in verdict)) throw new Error(`kept: ${JSON.stringify(verdict.keep)}`);
  return verdict.write;
}

describe('the verified view keeps `verified`', () => {
  it('writes each environment first verified, then the same status for later reads (no idle write)', () => {
    const first = written(view(stored(undefined), '2', T0)(stored(undefined)));
    expect(first.environments?.dev?.verified).toStrictEqual([{ revision: '2', time: iso(T0) }]);
    expect(first.environments?.prod?.verified).toStrictEqual([{ revision: '1', time: iso(T0) }]);
    // Another replica, or this one an hour later, reading the same state: nothing new.
    const later = written(view(stored(first), '2', T0 + 3_600_000)(stored(first)));
    expect(later).toStrictEqual(first);
  });

  it('appends the next revision when dev moves on, keeping the first', () => {
    const first = written(view(stored(undefined), '2', T0)(stored(undefined)));
    const next = written(view(stored(first), '3', T0 + 60_000)(stored(first)));
    expect(next.environments?.dev?.verified).toStrictEqual([
      { revision: '2', time: iso(T0) },
      { revision: '3', time: iso(T0 + 60_000) },
    ]);
    expect(next.environments?.staging?.verified).toStrictEqual(
      first.environments?.staging?.verified,
    );
  });
});
