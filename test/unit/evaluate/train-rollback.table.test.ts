/**
 * A failed train release's rollback of the members it promoted, case by case: only with the
 * train's rollbackOnFailure, only a release that failed, only a promotion of the member's release
 * revision that succeeded since the release started, once (a rollback is never rolled back), held
 * by a halt, and to the newest other revision the environment ran healthy; and a property: no
 * train rollback ever goes to the release revision or undoes a rollback.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EvaluationInput } from '../../../src/evaluate/decisions.js';
import { Reasons } from '../../../src/evaluate/reasons.js';
import type { TrainGateInput, TrainReleaseState } from '../../../src/evaluate/train-input.js';
import type { PromotionRecord, RevisionHold } from '../../../src/pipeline/pipeline-resource.js';
import {
  MINUTE,
  NOW,
  at,
  build,
  decisionFor,
  healthy,
  record,
} from '../../support/evaluate-builders.js';

const DIGEST = `sha256:${'b'.repeat(64)}`;
const STARTED = NOW - 10 * MINUTE;

function gate(overrides: Partial<TrainGateInput> = {}, state: TrainReleaseState = 'Failed') {
  return {
    train: 'shop/release',
    member: 'api',
    release: {
      digest: DIGEST,
      members: { api: '2.0.0', web: '5.0.0' },
      state,
      startedAt: STARTED,
    },
    dependsOn: [],
    rollbackOnFailure: true,
    ...overrides,
  };
}

/** The api's promotion of its release revision into prod, succeeded 5 minutes ago. */
const PROMOTED = record({
  revision: '2.0.0',
  phase: 'Succeeded',
  succeeded: true,
  lastAttemptedTime: at(-5 * MINUTE),
});

interface Sketch {
  gate?: TrainGateInput;
  record?: PromotionRecord;
  prod?: string;
  holds?: RevisionHold[];
  halted?: boolean;
  verified?: string[];
}

/** dev runs 2.0.0; prod runs 2.0.0 (unless told) and ran 1.0.0 then 2.0.0 healthy. */
function input(s: Sketch = {}): EvaluationInput {
  return build(
    [
      { name: 'dev', statuses: [healthy('2.0.0')] },
      {
        name: 'prod',
        statuses: [healthy(s.prod ?? '2.0.0')],
        promotion: { strategy: { notification: {} } },
      },
    ],
    {
      records: { prod: s.record ?? PROMOTED },
      trains: { prod: s.gate ?? gate() },
      histories: {
        prod: {
          verified: (s.verified ?? ['1.0.0', '2.0.0']).map((revision, i) => ({
            revision,
            time: at((i - 60) * MINUTE),
          })),
        },
      },
      ...(s.holds === undefined ? {} : { holds: { prod: s.holds } }),
      ...(s.halted === true
        ? { halts: [{ id: 'h', principal: 'alice', kind: 'human', reason: 'x', time: at(-1) }] }
        : {}),
    },
  );
}

describe('a failed train release rolls back the members it promoted', () => {
  it('rolls the promoted member back to the revision it ran before, naming the train', () => {
    const d = decisionFor(input(), 'prod');
    expect(d).toMatchObject({
      outcome: 'RollBack',
      revision: '1.0.0',
      attempt: 1,
      reason: Reasons.TrainRollback,
      rollback: {
        from: '2.0.0',
        by: ['promotion-gateway'],
        automatic: true,
        train: 'shop/release',
      },
    });
    expect(d.rollback?.reason).toContain('shop/release');
  });

  it('rolls back before the targets run it (the promotion succeeded, Flux not yet applied)', () => {
    expect(decisionFor(input({ prod: '1.0.0' }), 'prod')).toMatchObject({
      outcome: 'RollBack',
      revision: '1.0.0',
    });
  });

  const stays: [string, Sketch][] = [
    ['the train does not roll back on failure', { gate: gate({ rollbackOnFailure: false }) }],
    ['the release is still Promoting', { gate: gate({}, 'Promoting') }],
    ['the release succeeded', { gate: gate({}, 'Succeeded') }],
    ['the train probes the member', { gate: gate({ probe: true }) }],
    [
      'the member was promoted before the release started',
      { record: { ...PROMOTED, lastAttemptedTime: at(-20 * MINUTE) } },
    ],
    ['the promotion is still claimed', { record: { ...PROMOTED, phase: 'Claimed' } }],
    ['the promotion failed', { record: { ...PROMOTED, phase: 'Failed', succeeded: false } }],
    [
      'its pull request is still open',
      { record: { ...PROMOTED, pullRequest: { state: 'open', url: 'https://forge/pr/1' } } },
    ],
    ['the record is another revision', { record: { ...PROMOTED, revision: '1.5.0' } }],
  ];
  it.each(stays)('decides no rollback when %s', (_, sketch) => {
    expect(decisionFor(input(sketch), 'prod').outcome).not.toBe('RollBack');
  });

  it('rolls back once: the rollback recorded, nothing more is rolled back', () => {
    const rolledBack = record({
      revision: '1.0.0',
      phase: 'Succeeded',
      succeeded: true,
      lastAttemptedTime: at(-MINUTE),
      rollback: {
        from: '2.0.0',
        by: ['promotion-gateway'],
        reason: 'x',
        automatic: true,
        train: 'shop/release',
      },
    });
    const d = decisionFor(input({ record: rolledBack, prod: '1.0.0' }), 'prod');
    expect(d).toMatchObject({ outcome: 'Waiting', reason: Reasons.TrainGates });
  });

  it('waits while a halt holds the environment', () => {
    expect(decisionFor(input({ halted: true }), 'prod')).toMatchObject({
      outcome: 'Waiting',
      reason: Reasons.Halted,
      revision: '2.0.0',
    });
  });

  it('skips a held revision, and fails when there is none to go back to', () => {
    const held: RevisionHold = {
      revision: '1.0.0',
      reason: 'RolledBack',
      by: 'bob',
      time: at(-MINUTE),
    };
    expect(
      decisionFor(input({ verified: ['0.9.0', '1.0.0', '2.0.0'], holds: [held] }), 'prod'),
    ).toMatchObject({ outcome: 'RollBack', revision: '0.9.0' });
    expect(decisionFor(input({ verified: ['2.0.0'] }), 'prod')).toMatchObject({
      outcome: 'Failed',
      reason: Reasons.NoRollbackTarget,
    });
  });
});

describe('train rollbacks, over any record and release', () => {
  const revision = fc.constantFrom('1.0.0', '2.0.0', '3.0.0');
  const records = fc.record({
    revision,
    phase: fc.constantFrom('Succeeded', 'Claimed', 'Failed'),
    minutesAgo: fc.integer({ min: 0, max: 30 }),
    rollback: fc.boolean(),
  });
  const releases = fc.record({
    state: fc.constantFrom('Waiting', 'Promoting', 'Succeeded', 'Failed'),
    api: revision,
    rollbackOnFailure: fc.boolean(),
  });

  it('never goes to the release revision, never undoes a rollback, only when Failed', () => {
    let rolledBack = 0;
    fc.assert(
      fc.property(records, releases, revision, (r, rel, running) => {
        const stored = record({
          revision: r.revision,
          phase: r.phase,
          succeeded: r.phase === 'Succeeded',
          lastAttemptedTime: at(-r.minutesAgo * MINUTE),
          ...(r.rollback
            ? { rollback: { from: '3.0.0', by: ['promotion-gateway'], reason: 'x' } }
            : {}),
        });
        const g = gate({
          rollbackOnFailure: rel.rollbackOnFailure,
          release: {
            digest: DIGEST,
            members: { api: rel.api },
            state: rel.state,
            startedAt: STARTED,
          },
        });
        const d = decisionFor(input({ gate: g, record: stored, prod: running }), 'prod');
        if (d.reason !== Reasons.TrainRollback) return;
        rolledBack++;
        expect(rel.state).toBe('Failed');
        expect(rel.rollbackOnFailure).toBe(true);
        expect(r.rollback).toBe(false);
        expect(d.revision).not.toBe(rel.api);
        expect(d.rollback?.from).toBe(rel.api);
      }),
      { numRuns: 500 },
    );
    // The runs reached the rollback, not only the cases without one.
    expect(rolledBack).toBeGreaterThan(0);
  });
});
