/**
 * Missing events in the verified view: a target record whose state a resync pass found with no
 * event is marked `unannounced` when that replica's read replaces it; the mark goes when a
 * replica that has an event about the object computes the view, whichever replica it is, and
 * nothing else moves it; EventsMissing is True while a mark is stored, False (EventsArriving)
 * after, and absent on a Pipeline never marked. Repeated views of the same truth write nothing.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Evaluation, TargetStatus } from '../../../src/evaluate/decisions.js';
import type { ChangeVerdict } from '../../../src/kube/status-writer.js';
import type {
  Condition,
  Pipeline,
  PipelineStatus,
  TargetStatusRecord,
} from '../../../src/pipeline/pipeline-resource.js';
import { rfc3339 } from '../../../src/time/kube-time.js';
import { eventsMissingCondition } from '../../../src/status/compute-status.js';
import { mergeTarget, viewChange, type ViewVerdict } from '../../../src/status/view-change.js';
import type { Announcement } from '../../../src/verify/announcements.js';
import { samplePipeline, T0 } from '../../support/pipeline-fixtures.js';

const healthy = (revision: string): TargetStatus => ({
  location: { cluster: 'c', namespace: 'podinfo' },
  health: 'Healthy',
  revision,
  reason: 'Ready',
  message: '',
});
// Decisions do not matter here: an empty evaluation leaves PromotionPending False.
const evaluation: Evaluation = { decisions: [] };

/** One replica's view: dev's first target at `dev` with word `word`, the rest at 1. */
function view(dev: string, readAt: number, word?: Announcement) {
  const pipeline = samplePipeline();
  const targets = {
    dev: [healthy(dev), healthy('1')],
    staging: [healthy('1')],
    prod: [healthy('1')],
  };
  const observedAt = { dev: [readAt, T0], staging: [T0], prod: [T0] };
  const announcements = { dev: [word, undefined] };
  return viewChange(
    { pipeline, targets, observedAt, announcements, evaluation },
    { now: readAt, reevaluate: () => evaluation },
  );
}

function written(verdict: ChangeVerdict<ViewVerdict>): PipelineStatus {
  if (!('write' in verdict)) throw new Error(`kept: ${JSON.stringify(verdict.keep)}`);
  return verdict.write;
}

const stored = (status: PipelineStatus | undefined): Pipeline => samplePipeline(status);

function eventsMissing(status: PipelineStatus): Condition | undefined {
  return status.conditions?.find((c) => c.type === 'EventsMissing');
}

describe('the unannounced mark through the view', () => {
  it('is set by the detecting replica, kept by others, cleared by an event at either', () => {
    const before = written(view('1', T0)(stored(undefined)));
    expect(eventsMissing(before)).toBeUndefined();

    // Replica A's pass found dev at 2 with no event.
    const marked = written(view('2', T0 + 1_000, 'unannounced')(stored(before)));
    expect(marked.environments?.dev?.targets?.[0]).toMatchObject({
      revision: '2',
      unannounced: true,
    });
    expect(marked.environments?.dev?.targets?.[1]?.unannounced).toBeUndefined();
    expect(eventsMissing(marked)).toMatchObject({
      status: 'True',
      reason: 'UnannouncedChanges',
      lastTransitionTime: rfc3339(T0 + 1_000),
    });
    expect(eventsMissing(marked)?.message).toContain(
      'dev: HelmRelease podinfo/podinfo (2) in the management cluster',
    );
    // A again, and replica B (no word either way, a later read): the same status.
    expect(written(view('2', T0 + 2_000, 'unannounced')(stored(marked)))).toStrictEqual(marked);
    expect(written(view('2', T0 + 3_000)(stored(marked)))).toStrictEqual(marked);

    // An event about dev reaches B (or A): the mark goes, the observation stays.
    const cleared = written(view('2', T0 + 4_000, 'announced')(stored(marked)));
    const record = cleared.environments?.dev?.targets?.[0];
    expect(record?.unannounced).toBeUndefined();
    expect(record?.observedTime).toBe(marked.environments?.dev?.targets?.[0]?.observedTime);
    expect(eventsMissing(cleared)).toMatchObject({
      status: 'False',
      reason: 'EventsArriving',
      lastTransitionTime: rfc3339(T0 + 4_000),
    });
    // A still has its word: it never marks a state another view already showed.
    expect(written(view('2', T0 + 5_000, 'unannounced')(stored(cleared)))).toStrictEqual(cleared);
  });

  it('is left alone while a stored record is newer and says otherwise (Stale)', () => {
    const marked = written(view('2', T0 + 1_000, 'unannounced')(stored(undefined)));
    expect(view('1', T0, 'announced')(stored(marked))).toMatchObject({ keep: { kind: 'Stale' } });
  });
});

describe('mergeTarget with a word on announcement', () => {
  const ours: TargetStatusRecord = {
    clusterAppRef: { apiVersion: 'v', kind: 'HelmRelease', name: 'p' },
    ready: true,
    revision: '2',
  };
  const at = Date.parse('2026-03-04T05:06:07.000Z');
  const same = { ...ours, observedTime: '2026-03-04T05:06:07.000Z' };
  const older = { ...same, revision: '1' };
  const mark = { unannounced: true };
  const newer = { ...ours, observedTime: '2026-03-04T05:06:08.000Z' };
  it.each<[string, TargetStatusRecord | undefined, Announcement | undefined, unknown]>([
    ['same state, marked, an event', { ...same, ...mark }, 'announced', same],
    ['same state, marked, no word', { ...same, ...mark }, undefined, { ...same, ...mark }],
    [
      'same state, marked, still unannounced',
      { ...same, ...mark },
      'unannounced',
      { ...same, ...mark },
    ],
    ['same state, unmarked: seen first elsewhere', same, 'unannounced', same],
    ['a newer state found unannounced', older, 'unannounced', { ...newer, ...mark }],
    ['a newer state announced', { ...older, ...mark }, 'announced', newer],
    ['a newer state, no word', { ...older, ...mark }, undefined, newer],
    ['a first record found unannounced', undefined, 'unannounced', { ...newer, ...mark }],
  ])('%s', (_name, storedRecord, word, expected) => {
    expect(mergeTarget(ours, storedRecord, at + 1_000, word)).toStrictEqual(expected);
  });

  it('changes a record at most twice per state (written, then unmarked): replicas cannot flap', () => {
    const write = fc.record({
      revision: fc.constantFrom('1', '2'),
      at: fc.integer({ min: 0, max: 30 }),
      word: fc.constantFrom<Announcement | undefined>('announced', 'unannounced', undefined),
    });
    fc.assert(
      fc.property(fc.array(write, { minLength: 1, maxLength: 16 }), (writes) => {
        let record: TargetStatusRecord | undefined;
        const changes = new Map<string, number>();
        for (const w of writes) {
          const merged = mergeTarget({ ...ours, revision: w.revision }, record, at + w.at, w.word);
          if (merged === 'stale' || merged === record) continue;
          record = merged;
          const id = record.observedTime ?? '';
          changes.set(id, (changes.get(id) ?? 0) + 1);
          // A mark is only ever written with a new observation, never added to a kept one.
          if (record.unannounced === true) expect(changes.get(id)).toBe(1);
        }
        for (const n of changes.values()) expect(n).toBeLessThanOrEqual(2);
      }),
    );
  });
});

describe('eventsMissingCondition', () => {
  const records = (marks: boolean[]) => ({
    dev: {
      targets: marks.map((m, i) => ({
        clusterAppRef: { apiVersion: 'v', kind: 'HelmRelease', name: 'podinfo' },
        ready: true,
        revision: String(i),
        ...(m ? { unannounced: true } : {}),
      })),
    },
  });
  const before: Condition = {
    type: 'EventsMissing',
    status: 'True',
    reason: 'UnannouncedChanges',
    message: 'm',
    lastTransitionTime: '2026-01-01T00:00:00Z',
  };
  it.each<[string, string | undefined, boolean[], Condition[]]>([
    ['never marked: no condition', undefined, [false, false], []],
    ['a mark on the second dev target', 'True UnannouncedChanges', [false, true], []],
    ['marks gone after one was stored', 'False EventsArriving', [false, false], [before]],
    ['still marked', 'True UnannouncedChanges', [true, false], [before]],
  ])('%s -> %s', (_name, expected, marks, conditions) => {
    const pipeline = samplePipeline({ conditions });
    const condition = eventsMissingCondition(pipeline, records(marks), T0);
    expect(condition === undefined ? undefined : `${condition.status} ${condition.reason}`).toBe(
      expected,
    );
    if (expected?.startsWith('True') === true && marks[1] === true) {
      expect(condition?.message).toContain(
        'dev: HelmRelease podinfo/podinfo (1) in cluster dev-eu',
      );
    }
    // The transition time moves only with the status.
    if (expected === 'True UnannouncedChanges' && conditions.length > 0) {
      expect(condition?.lastTransitionTime).toBe(before.lastTransitionTime);
    }
  });
});
