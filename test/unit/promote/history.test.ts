import { describe, expect, it } from 'vitest';
import { historyAfter, MAX_HISTORY } from '../../../src/promote/history.js';
import type { PromotionRecord } from '../../../src/pipeline/pipeline-resource.js';

const T = Date.parse('2026-11-25T10:00:00Z');

function claimed(revision: string, attempt = 1, at = T): PromotionRecord {
  return {
    revision,
    attempt,
    phase: 'Claimed',
    succeeded: false,
    lastAttemptedTime: new Date(at).toISOString().replace('.000Z', 'Z'),
  };
}

describe('historyAfter', () => {
  it('tells a revision from claim to success, one entry per revision', () => {
    let history = historyAfter(undefined, claimed('1.0.0'), T);
    expect(history).toEqual([
      { revision: '1.0.0', startedTime: '2026-11-25T10:00:00.000Z', attempts: 1 },
    ]);
    const failed = { ...claimed('1.0.0'), phase: 'Failed' as const, message: 'Boom: no' };
    history = historyAfter(history, failed, T + 1_000);
    history = historyAfter(history, claimed('1.0.0', 2, T + 5_000), T + 5_000);
    const succeeded = { ...claimed('1.0.0', 2, T + 5_000), phase: 'Succeeded' as const };
    history = historyAfter(history, { ...succeeded, succeeded: true }, T + 6_000);
    expect(history).toEqual([
      {
        revision: '1.0.0',
        startedTime: '2026-11-25T10:00:00.000Z',
        attempts: 2,
        failedTime: '2026-11-25T10:00:01.000Z',
        failure: 'Boom: no',
        succeededTime: '2026-11-25T10:00:06.000Z',
      },
    ]);
    history = historyAfter(history, claimed('1.1.0', 1, T + 9_000), T + 9_000);
    expect(history.map((e) => e.revision)).toEqual(['1.0.0', '1.1.0']);
  });

  it('keeps what shadow gates would have held, as the claim recorded it, past the outcome', () => {
    const wouldHold = [{ gate: 'window' as const, name: 'freeze', reason: 'InDenyWindow' }];
    let history = historyAfter(undefined, { ...claimed('1.0.0'), wouldHold }, T);
    const succeeded = { ...claimed('1.0.0'), phase: 'Succeeded' as const, succeeded: true };
    history = historyAfter(history, succeeded, T + 1_000);
    expect(history[0]?.wouldHold).toEqual(wouldHold);
    history = historyAfter(history, claimed('1.1.0', 1, T + 9_000), T + 9_000);
    expect(history[1]?.wouldHold).toBeUndefined();
  });

  it('writes nothing new when the same record is stored again, and stamps times once', () => {
    const once = historyAfter(undefined, { ...claimed('1.0.0'), phase: 'Failed' }, T);
    const twice = historyAfter(once, { ...claimed('1.0.0'), phase: 'Failed' }, T + 60_000);
    expect(twice).toEqual(once);
  });

  it('counts an open pull request as not yet succeeded and its merge as the success', () => {
    const open: PromotionRecord = {
      ...claimed('2.0.0'),
      phase: 'Succeeded',
      succeeded: true,
      pullRequest: { state: 'open', url: 'https://forge/pr/1' },
    };
    const opened = historyAfter(undefined, open, T);
    expect(opened[0]?.succeededTime).toBeUndefined();
    const merged = { ...open, pullRequest: { state: 'merged', url: 'https://forge/pr/1' } };
    expect(historyAfter(opened, merged, T + 1_000)[0]?.succeededTime).toBe(
      '2026-11-25T10:00:01.000Z',
    );
  });

  it(`keeps the latest ${String(MAX_HISTORY)} revisions, dropping the oldest`, () => {
    let history = historyAfter(undefined, claimed('r0'), T);
    for (let i = 1; i < MAX_HISTORY + 5; i++) {
      history = historyAfter(history, claimed(`r${String(i)}`, 1, T + i), T + i);
    }
    expect(history).toHaveLength(MAX_HISTORY);
    expect(history[0]?.revision).toBe('r5');
    expect(history.at(-1)?.revision).toBe(`r${String(MAX_HISTORY + 4)}`);
  });
});
