/**
 * Since when an environment has run a revision healthy: one replica's streak of reads, and the
 * value the status keeps, from what is stored and what the replica read.
 */
import { describe, expect, it } from 'vitest';
import {
  advanceStreak,
  healthySinceOf,
  type EnvironmentReads,
  type ReadStreak,
} from '../../../src/evaluate/healthy-since.js';
import type { TargetStatusRecord } from '../../../src/pipeline/pipeline-resource.js';
import { NOW, at, healthy, unhealthy, unknown } from '../../support/evaluate-builders.js';

const S = 1_000;

describe('advanceStreak', () => {
  it('starts a run at the first Healthy read and keeps it while reads agree', () => {
    const first = advanceStreak(undefined, healthy('1.0.0'), 10 * S, undefined);
    expect(first).toEqual({ healthyRevision: '1.0.0', healthySince: 10 * S });
    expect(advanceStreak(first, healthy('1.0.0'), 20 * S, 10 * S)).toBe(first);
  });

  it.each([
    ['Unhealthy', unhealthy('1.0.0')],
    ['Unknown', unknown()],
    ['Healthy without revision', { ...healthy('x'), revision: undefined }],
  ])('ends the run at a read that is %s', (_name, status) => {
    const run: ReadStreak = { healthyRevision: '1.0.0', healthySince: 10 * S };
    expect(advanceStreak(run, status, 30 * S, 20 * S)).toEqual({ brokenAt: 30 * S });
  });

  it('starts again after a break, remembering when the break was read', () => {
    const broken = advanceStreak(undefined, unhealthy('1.0.0'), 30 * S, undefined);
    expect(advanceStreak(broken, healthy('1.0.0'), 40 * S, 30 * S)).toEqual({
      healthyRevision: '1.0.0',
      healthySince: 40 * S,
      brokenAt: 30 * S,
    });
  });

  it('counts the last read of the old revision as the break before a new one', () => {
    const run: ReadStreak = { healthyRevision: '1.0.0', healthySince: 10 * S };
    expect(advanceStreak(run, healthy('2.0.0'), 40 * S, 35 * S)).toEqual({
      healthyRevision: '2.0.0',
      healthySince: 40 * S,
      brokenAt: 35 * S,
    });
  });
});

const record = (ready: boolean, revision: string, observedAt: number): TargetStatusRecord => ({
  clusterAppRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'app' },
  ready,
  revision,
  observedTime: at(observedAt),
});
const run = (since: number, brokenAt?: number): ReadStreak => ({
  healthyRevision: '1.0.0',
  healthySince: NOW + since,
  ...(brokenAt === undefined ? {} : { brokenAt: NOW + brokenAt }),
});

/** Two targets of dev read at -10 s and -5 s, both Healthy at 1.0.0 since -60 s. */
function reads(overrides: Partial<EnvironmentReads> = {}): EnvironmentReads {
  return {
    statuses: [healthy('1.0.0'), healthy('1.0.0')],
    readAt: [NOW - 10 * S, NOW - 5 * S],
    streaks: [run(-60 * S), run(-60 * S)],
    records: [record(true, '1.0.0', -60 * S), record(true, '1.0.0', -60 * S)],
    stored: { revision: '1.0.0', time: at(-60 * S) },
    now: NOW,
    ...overrides,
  };
}

describe('healthySinceOf', () => {
  it('keeps the stored value, the same object, while nothing broke the run', () => {
    const given = reads();
    expect(healthySinceOf(given)).toBe(given.stored);
  });

  it('never moves a stored time back for an earlier run of ours (no shortening)', () => {
    const given = reads({ streaks: [run(-3_600 * S), run(-3_600 * S)] });
    expect(healthySinceOf(given)).toBe(given.stored);
  });

  it('never moves it forward for a later run of ours with no break (a restart, a new replica)', () => {
    const given = reads({ streaks: [run(-10 * S), run(-5 * S)] });
    expect(healthySinceOf(given)).toBe(given.stored);
  });

  it('resets it to the start of our run after a break we read after it', () => {
    const given = reads({ streaks: [run(-20 * S, -25 * S), run(-60 * S)] });
    expect(healthySinceOf(given)).toEqual({ revision: '1.0.0', time: at(-20 * S) });
  });

  it('keeps it when our break is older than the stored time (someone saw the run since)', () => {
    const given = reads({
      streaks: [run(-50 * S, -70 * S), run(-60 * S)],
      stored: { revision: '1.0.0', time: at(-40 * S) },
    });
    expect(healthySinceOf(given)?.time).toBe(at(-40 * S));
  });

  it('starts one when none is stored: the latest of our runs and of the records', () => {
    expect(healthySinceOf(reads({ stored: undefined }))).toEqual({
      revision: '1.0.0',
      time: at(-60 * S),
    });
    const records = [record(true, '1.0.0', -30 * S), record(true, '1.0.0', -90 * S)];
    expect(healthySinceOf(reads({ stored: undefined, records }))?.time).toBe(at(-30 * S));
  });

  it('starts one for a new revision, replacing the stored one of the old', () => {
    const given = reads({ stored: { revision: '0.9.0', time: at(-3_600 * S) } });
    expect(healthySinceOf(given)).toEqual({ revision: '1.0.0', time: at(-60 * S) });
  });

  it('counts from our read when the status does not show the run yet', () => {
    const records = [record(false, '1.0.0', -30 * S), record(true, '1.0.0', -60 * S)];
    expect(healthySinceOf(reads({ stored: undefined, records }))?.time).toBe(at(-10 * S));
  });

  it('moves a stored time forward when a target joins the run later (a new target)', () => {
    const given = reads({ records: [record(true, '1.0.0', -60 * S), undefined] });
    expect(healthySinceOf(given)?.time).toBe(at(-5 * S));
  });

  it('does not know when a newer record says otherwise than our read', () => {
    const records = [record(false, '1.0.0', -8 * S), record(true, '1.0.0', -60 * S)];
    expect(healthySinceOf(reads({ records }))).toBeUndefined();
  });

  it.each([
    ['a target Unhealthy', [healthy('1.0.0'), unhealthy('1.0.0')]],
    ['targets at different revisions', [healthy('1.0.0'), healthy('1.0.1')]],
    ['a target Unhealthy and one Unknown', [unknown(), unhealthy('1.0.0')]],
    ['no targets', []],
  ])('removes it when a read finds %s', (_name, statuses) => {
    expect(healthySinceOf(reads({ statuses }))).toBeUndefined();
  });

  it('keeps it as stored while a target not read yet is Unknown (a replica just started)', () => {
    const given = reads({ statuses: [healthy('1.0.0'), unknown()], streaks: [run(-5 * S)] });
    expect(healthySinceOf(given)).toBe(given.stored);
  });

  it('removes it when our read could not read a target after it (Unknown is no healthy time)', () => {
    const statuses = [healthy('1.0.0'), unknown()];
    const given = reads({ statuses, streaks: [run(-60 * S), { brokenAt: NOW - 5 * S }] });
    expect(healthySinceOf(given)).toBeUndefined();
    // An Unknown read older than the stored time says nothing new.
    const older = reads({ statuses, streaks: [run(-60 * S), { brokenAt: NOW - 70 * S }] });
    expect(healthySinceOf(older)).toBe(older.stored);
  });

  it('without kept reads, counts every read from now', () => {
    const given = reads({ stored: undefined, readAt: [], streaks: [], records: [] });
    expect(healthySinceOf(given)).toEqual({ revision: '1.0.0', time: at(0) });
  });
});
