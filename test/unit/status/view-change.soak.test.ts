/**
 * The verified view keeps `healthySince` for the environments a soak waits on: written when the
 * environment becomes healthy at a revision, then left alone (no write while nothing changed),
 * kept through Unknown, removed by an Unhealthy read, and never moved by a replica that saw no
 * break; Pipelines without a soak get none.
 */
import { describe, expect, it } from 'vitest';
import type { Evaluation, TargetStatus } from '../../../src/evaluate/decisions.js';
import { advanceStreak, type ReadStreak } from '../../../src/evaluate/healthy-since.js';
import type { ChangeVerdict } from '../../../src/kube/status-writer.js';
import type { Pipeline, PipelineStatus } from '../../../src/pipeline/pipeline-resource.js';
import { evaluatePipeline } from '../../../src/evaluation/evaluation-input.js';
import { viewChange, type ViewVerdict } from '../../../src/status/view-change.js';
import { samplePipeline, T0 } from '../../support/pipeline-fixtures.js';

const POLICY = {
  maxAttempts: 3,
  backoffBaseMs: 1000,
  backoffMaxMs: 10_000,
  claimTimeoutMs: 60_000,
};
const S = 1_000;
const iso = (ms: number): string => new Date(ms).toISOString();

const target = (health: TargetStatus['health'], revision?: string): TargetStatus => ({
  location: { cluster: 'c', namespace: 'podinfo' },
  health,
  ...(revision === undefined ? {} : { revision }),
  reason: health === 'Healthy' ? 'Ready' : 'UpgradeFailed',
  message: '',
});

/** samplePipeline with a soak on staging (so dev's healthy-since is kept), or none. */
function pipeline(status: PipelineStatus | undefined, soak = true): Pipeline {
  const p = samplePipeline(status);
  const staging = p.spec.environments[1];
  if (soak && staging !== undefined) {
    staging.promotion = { strategy: { notification: {} }, soak: { duration: '10m' } };
  }
  return { ...p, metadata: { ...p.metadata, resourceVersion: '1' } };
}

function reevaluate(p: Pipeline, targets: Record<string, TargetStatus[]>): Evaluation {
  return evaluatePipeline(p, targets, { policy: POLICY, floors: {} }, T0);
}

/** One replica's view: dev's two targets as given, read at `readAt` with `streaks`. */
function view(
  p: Pipeline,
  dev: TargetStatus[],
  readAt: number,
  streaks: (ReadStreak | undefined)[],
  now = readAt,
) {
  const targets = { dev, staging: [target('Healthy', '1')], prod: [target('Healthy', '1')] };
  const observedAt = { dev: [readAt, readAt], staging: [readAt], prod: [readAt] };
  const inputs = { pipeline: p, targets, observedAt, streaks: { dev: streaks } };
  return viewChange({ ...inputs, evaluation: reevaluate(p, targets) }, { now, reevaluate });
}

function written(verdict: ChangeVerdict<ViewVerdict>): PipelineStatus {
  if (!('write' in verdict)) throw new Error(`kept: ${JSON.stringify(verdict.keep)}`);
  return verdict.write;
}

const run = (since: number, brokenAt?: number): ReadStreak => ({
  healthyRevision: '2',
  healthySince: since,
  ...(brokenAt === undefined ? {} : { brokenAt }),
});
const healthy2 = [target('Healthy', '2'), target('Healthy', '2')];

describe('viewChange and healthySince', () => {
  it('writes it when dev becomes healthy, from the reads, then writes nothing more', () => {
    const first = written(
      view(pipeline(undefined), healthy2, T0, [run(T0), run(T0)])(pipeline(undefined)),
    );
    expect(first.environments?.dev?.healthySince).toEqual({ revision: '2', time: iso(T0) });
    expect(first.environments?.staging?.healthySince).toBeUndefined();
    // Ten minutes of the same reads later, by this replica or a restarted one: the same status.
    for (const streak of [run(T0), run(T0 + 600 * S)]) {
      const later = view(pipeline(first), healthy2, T0 + 600 * S, [streak, streak])(
        pipeline(first),
      );
      expect(written(later)).toStrictEqual(first);
    }
  });

  it('is reset by a replica whose reads broke the run after the stored time', () => {
    const first = written(
      view(pipeline(undefined), healthy2, T0, [run(T0), run(T0)])(pipeline(undefined)),
    );
    const streaks = [run(T0 + 90 * S, T0 + 60 * S), run(T0)];
    const next = written(view(pipeline(first), healthy2, T0 + 120 * S, streaks)(pipeline(first)));
    expect(next.environments?.dev?.healthySince).toEqual({ revision: '2', time: iso(T0 + 90 * S) });
  });

  it('is removed by an Unhealthy or an Unknown read, and kept for a target not read yet', () => {
    const first = written(
      view(pipeline(undefined), healthy2, T0, [run(T0), run(T0)])(pipeline(undefined)),
    );
    const at = T0 + 60 * S;
    const broke = { brokenAt: at };
    for (const second of [target('Unhealthy', '2'), target('Unknown')]) {
      const dev = [target('Healthy', '2'), second];
      const removed = written(view(pipeline(first), dev, at, [run(T0), broke])(pipeline(first)));
      expect(removed.environments?.dev).not.toHaveProperty('healthySince');
    }
    // A replica that just started and has no read of one target kept: nothing broke the run.
    const partial = [target('Healthy', '2'), target('Unknown')];
    const kept = written(view(pipeline(first), partial, at, [run(at), undefined])(pipeline(first)));
    expect(kept.environments?.dev?.healthySince).toEqual(first.environments?.dev?.healthySince);
  });

  it('is not written over by a view older than the stored records (Stale)', () => {
    const first = written(
      view(pipeline(undefined), healthy2, T0 + 60 * S, [run(T0 + 60 * S), run(T0 + 60 * S)])(
        pipeline(undefined),
      ),
    );
    const older = [target('Healthy', '1'), target('Healthy', '1')];
    const verdict = view(pipeline(first), older, T0, [undefined, undefined])(pipeline(first));
    expect(verdict).toMatchObject({ keep: { kind: 'Stale' } });
  });

  it('is kept only while a soak waits on the environment: none without one, removed with it', () => {
    const plain = written(
      view(pipeline(undefined, false), healthy2, T0, [run(T0), run(T0)])(
        pipeline(undefined, false),
      ),
    );
    expect(plain.environments?.dev).not.toHaveProperty('healthySince');
    const soaked = written(
      view(pipeline(undefined), healthy2, T0, [run(T0), run(T0)])(pipeline(undefined)),
    );
    const dropped = written(
      view(pipeline(soaked, false), healthy2, T0 + S, [run(T0), run(T0)])(pipeline(soaked, false)),
    );
    expect(dropped.environments?.dev).not.toHaveProperty('healthySince');
  });

  it('keeps a steady PromotionPending message while staging soaks, whatever the time', () => {
    const first = written(
      view(pipeline(undefined), healthy2, T0, [run(T0), run(T0)])(pipeline(undefined)),
    );
    const pending = first.conditions?.find((c) => c.type === 'PromotionPending');
    expect(pending).toMatchObject({
      status: 'True',
      reason: 'Soaking',
      message: `staging: dev has run 2 healthy since ${iso(T0)}; staging waits for 10m of it, until ${new Date(Math.ceil((T0 + 600 * S) / S) * S).toISOString().replace('.000Z', 'Z')}`,
    });
    const minuteLater = view(
      pipeline(first),
      healthy2,
      T0 + 60 * S,
      [run(T0), run(T0)],
      T0 + 60 * S,
    );
    expect(written(minuteLater(pipeline(first)))).toStrictEqual(first);
  });

  it('follows the streaks VerifiedTargets keeps (advanceStreak) read by read', () => {
    const first = written(
      view(pipeline(undefined), healthy2, T0, [run(T0), run(T0)])(pipeline(undefined)),
    );
    // A blip between two writes: the status never showed it, this replica's streak did.
    let streak = advanceStreak(undefined, target('Healthy', '2'), T0, undefined);
    streak = advanceStreak(streak, target('Unhealthy', '2'), T0 + 10 * S, T0);
    streak = advanceStreak(streak, target('Healthy', '2'), T0 + 20 * S, T0 + 10 * S);
    const status = written(
      view(pipeline(first), healthy2, T0 + 20 * S, [streak, run(T0)])(pipeline(first)),
    );
    expect(status.environments?.dev?.healthySince?.time).toBe(iso(T0 + 20 * S));
  });
});
