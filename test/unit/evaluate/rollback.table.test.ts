/**
 * Rollback decisions, case by case: an authorized rollback (quorum, who may, to what), an
 * automatic one on a failed verification (window, once per revision, halts), a retried one, and
 * the holds that keep a rolled-back or failed revision out of this and later environments.
 */
import { describe, expect, it } from 'vitest';
import type { EvaluationInput, TargetStatus } from '../../../src/evaluate/decisions.js';
import type {
  AuthorizationRecord,
  PromotionSpec,
  RevisionHold,
} from '../../../src/pipeline/pipeline-resource.js';
import {
  MINUTE,
  at,
  authorization,
  build,
  decisionFor,
  expectCase,
  healthy,
  record,
  unhealthy,
  unknown,
  type Case,
} from '../../support/evaluate-builders.js';

const STRATEGY = { notification: {} };
const VERIFIED = [
  { revision: '1', time: at(-60 * MINUTE) },
  { revision: '2', time: at(-30 * MINUTE) },
];

interface Sketch {
  dev?: string;
  staging?: TargetStatus[];
  prod?: TargetStatus[];
  prodPolicy?: Partial<PromotionSpec>;
  stagingPolicy?: Partial<PromotionSpec>;
  asks?: AuthorizationRecord[];
  holds?: Record<string, RevisionHold[]>;
  extra?: Parameters<typeof build>[1];
}

/** dev -> staging -> prod; staging at 2 and prod at 2 unless told, prod ran 1 and 2 healthy. */
function pipeline(s: Sketch = {}): EvaluationInput {
  return build(
    [
      { name: 'dev', statuses: [healthy(s.dev ?? '2')] },
      {
        name: 'staging',
        statuses: s.staging ?? [healthy('2')],
        promotion: { strategy: STRATEGY, ...s.stagingPolicy },
      },
      {
        name: 'prod',
        statuses: s.prod ?? [healthy('2')],
        promotion: { strategy: STRATEGY, ...s.prodPolicy },
      },
    ],
    {
      authorizations: { prod: s.asks ?? [] },
      histories: {
        prod: { verified: VERIFIED },
        staging: { verified: VERIFIED },
      },
      ...(s.holds === undefined ? {} : { holds: s.holds }),
      ...s.extra,
    },
  );
}

function ask(principal: string, overrides: Partial<AuthorizationRecord> = {}) {
  return authorization('1', {
    principal,
    decision: 'rollback',
    from: '2',
    comment: 'errors up',
    time: at(-MINUTE),
    jti: `jti-${principal}`,
    ...overrides,
  });
}

function hold(revision: string, overrides: Partial<RevisionHold> = {}): RevisionHold {
  return { revision, reason: 'RolledBack', by: 'alice', time: at(-30_000), ...overrides };
}

/** staging promoted to 3 five minutes ago, its target now failing; automatic rollback on. */
function failedStaging(over: Partial<Sketch> & { window?: string } = {}): EvaluationInput {
  const automatic = { window: over.window ?? '15m' };
  return pipeline({
    dev: '3',
    staging: [unhealthy('3', 'UpgradeFailed')],
    stagingPolicy: { rollback: { automatic } },
    ...over,
    extra: {
      records: {
        staging: record({ revision: '3', phase: 'Succeeded', succeeded: true }),
      },
      histories: {
        staging: {
          verified: VERIFIED,
          history: [
            {
              revision: '3',
              startedTime: at(-6 * MINUTE),
              attempts: 1,
              succeededTime: at(-5 * MINUTE),
            },
          ],
        },
        prod: { verified: VERIFIED },
      },
      ...over.extra,
    },
  });
}

const cases: Case[] = [
  {
    name: 'one allowed person asks: prod rolls back from 2 to 1',
    input: pipeline({ asks: [ask('alice')] }),
    env: 'prod',
    want: {
      outcome: 'RollBack',
      revision: '1',
      attempt: 1,
      reason: 'RollbackAuthorized',
      rollback: {
        from: '2',
        by: ['alice'],
        reason: 'errors up',
        statements: ['jti-alice'],
        automatic: false,
      },
    },
  },
  {
    name: 'a rollback reads only its own environment: staging unreadable does not stop it',
    input: pipeline({ asks: [ask('alice')], staging: [unknown()] }),
    env: 'prod',
    want: { outcome: 'RollBack', revision: '1', reason: 'RollbackAuthorized' },
  },
  {
    name: 'with its own targets unreadable, nothing is decided, rollback or not',
    input: pipeline({ asks: [ask('alice')], prod: [unknown()] }),
    env: 'prod',
    want: { outcome: 'Unknown', reason: 'TargetUnknown' },
  },
  {
    name: 'a quorum of two: one ask is not enough',
    input: pipeline({ asks: [ask('alice')], prodPolicy: { rollback: { minApprovals: 2 } } }),
    env: 'prod',
    want: { outcome: 'UpToDate' },
  },
  {
    name: 'a quorum of two: the same person twice is one',
    input: pipeline({
      asks: [ask('alice'), ask('alice', { jti: 'again' })],
      prodPolicy: { rollback: { minApprovals: 2 } },
    }),
    env: 'prod',
    want: { outcome: 'UpToDate' },
  },
  {
    name: 'a quorum of two met by two people',
    input: pipeline({
      asks: [ask('alice'), ask('bob')],
      prodPolicy: { rollback: { minApprovals: 2 } },
    }),
    env: 'prod',
    want: {
      outcome: 'RollBack',
      revision: '1',
      rollback: expect.objectContaining({ by: ['alice', 'bob'] }),
    },
  },
  {
    name: 'a principal the rollback policy does not name counts for nothing',
    input: pipeline({ asks: [ask('mallory')], prodPolicy: { rollback: { approvers: ['alice'] } } }),
    env: 'prod',
    want: { outcome: 'UpToDate' },
  },
  {
    name: 'where the policy names nobody, only a configured approver counts',
    input: pipeline({ asks: [ask('mallory')], extra: { approvers: ['alice'] } }),
    env: 'prod',
    want: { outcome: 'UpToDate' },
  },
  {
    name: 'a CI principal counts only where named',
    input: pipeline({ asks: [ask('ci:deploy', { kind: 'ci' })] }),
    env: 'prod',
    want: { outcome: 'UpToDate' },
  },
  {
    name: 'a revision prod never ran healthy is no rollback target',
    input: pipeline({ asks: [ask('alice', { revision: '0' })] }),
    env: 'prod',
    want: { outcome: 'UpToDate' },
  },
  {
    name: 'an ask made when prod ran another revision counts no more',
    input: pipeline({ asks: [ask('alice', { from: '1' })] }),
    env: 'prod',
    want: { outcome: 'UpToDate' },
  },
  {
    name: 'an ask answered by a hold (the claim landed) counts no more',
    input: pipeline({ asks: [ask('alice')], holds: { prod: [hold('2')] } }),
    env: 'prod',
    want: { outcome: 'UpToDate' },
  },
  {
    name: 'an ask recorded with milliseconds is answered by a hold stored in whole seconds within that second',
    input: pipeline({
      asks: [ask('alice', { time: at(-MINUTE + 600) })],
      holds: { prod: [hold('2', { time: at(-MINUTE).replace('.000Z', 'Z') })] },
    }),
    env: 'prod',
    want: { outcome: 'UpToDate' },
  },
  {
    name: 'an ask made after the hold on its revision was set is not answered by it',
    input: pipeline({
      asks: [ask('alice', { time: at(-MINUTE + 1_600) })],
      holds: { prod: [hold('2', { time: at(-MINUTE + 900) })] },
    }),
    env: 'prod',
    want: { outcome: 'RollBack', revision: '1' },
  },
  {
    name: 'rolled back: the upstream revision is held (RolledBack)',
    input: pipeline({ prod: [healthy('1')], holds: { prod: [hold('2')] } }),
    env: 'prod',
    want: { outcome: 'Waiting', reason: 'RolledBack', revision: '2' },
  },
  {
    name: 'a lifted hold holds nothing: 2 promotes again',
    input: pipeline({
      prod: [healthy('1')],
      holds: { prod: [hold('2', { liftedAt: at(0), liftedBy: 'bob' })] },
    }),
    env: 'prod',
    want: { outcome: 'Promote', revision: '2' },
  },
  {
    name: 'a newer revision upstream is not held',
    input: build(
      [
        { name: 'dev', statuses: [healthy('3')] },
        { name: 'prod', statuses: [healthy('1')] },
      ],
      { holds: { prod: [hold('2')] } },
    ),
    env: 'prod',
    want: { outcome: 'Promote', revision: '3' },
  },
  {
    name: 'a failed verification in staging holds the revision for prod too',
    input: pipeline({
      staging: [healthy('3')],
      holds: { staging: [hold('3', { reason: 'FailedVerification', by: 'promotion-gateway' })] },
    }),
    env: 'prod',
    want: { outcome: 'Waiting', reason: 'FailedVerification', revision: '3' },
  },
  {
    name: 'automatic: staging failed within the window rolls back to the previous healthy revision',
    input: failedStaging(),
    env: 'staging',
    want: {
      outcome: 'RollBack',
      revision: '2',
      reason: 'AutomaticRollback',
      rollback: expect.objectContaining({ from: '3', automatic: true, by: ['promotion-gateway'] }),
    },
  },
  {
    name: 'automatic: outside the window nothing rolls back',
    input: failedStaging({ window: '2m' }),
    env: 'staging',
    want: { outcome: 'UpToDate' },
  },
  {
    name: 'automatic: a rollout still under way is no failure',
    input: failedStaging({ staging: [unhealthy('3', 'Reconciling')] }),
    env: 'staging',
    want: { outcome: 'UpToDate' },
  },
  {
    name: 'automatic: once per revision (a failed verification already recorded)',
    input: failedStaging({
      holds: {
        staging: [hold('3', { reason: 'FailedVerification', liftedAt: at(0), liftedBy: 'bob' })],
      },
    }),
    env: 'staging',
    want: { outcome: 'UpToDate' },
  },
  {
    name: 'automatic: a halt holds it by default',
    input: failedStaging({
      extra: {
        halts: [{ id: 'h', principal: 'alice', kind: 'human', reason: 'x', time: at(-MINUTE) }],
      },
    }),
    env: 'staging',
    want: { outcome: 'Waiting', reason: 'Halted', revision: '3' },
  },
  {
    name: 'automatic: duringHalts lets it run through a halt',
    input: failedStaging({
      stagingPolicy: { rollback: { automatic: { window: '15m', duringHalts: true } } },
      extra: {
        halts: [{ id: 'h', principal: 'alice', kind: 'human', reason: 'x', time: at(-MINUTE) }],
      },
    }),
    env: 'staging',
    want: { outcome: 'RollBack', revision: '2' },
  },
  {
    name: 'automatic: no earlier healthy revision is a failure that says so',
    input: failedStaging({
      extra: {
        histories: {
          staging: {
            verified: [{ revision: '3', time: at(-4 * MINUTE) }],
            history: [
              {
                revision: '3',
                startedTime: at(-6 * MINUTE),
                attempts: 1,
                succeededTime: at(-5 * MINUTE),
              },
            ],
          },
        },
      },
    }),
    env: 'staging',
    want: { outcome: 'Failed', reason: 'NoRollbackTarget', revision: '3' },
  },
];

const E2E = { name: 'e2e', http: { url: 'https://checks.example/e2e' } };

/** staging promoted to 3 five minutes ago, healthy, with an e2e check and automatic rollback. */
function checkedStaging(checks: EvaluationInput['checks']): EvaluationInput {
  const input = failedStaging({
    staging: [healthy('3')],
    stagingPolicy: { checks: [E2E], rollback: { automatic: { window: '15m' } } },
  });
  return checks === undefined ? input : { ...input, checks };
}

describe('automatic rollback on a check', () => {
  it('rolls back when a check fails for the promoted revision within the window', () => {
    const failed = {
      index: 0,
      revision: '3',
      state: 'Failed' as const,
      message: '503',
      expiresAt: 0,
    };
    const decision = decisionFor(checkedStaging({ staging: [failed] }), 'staging');
    expect(decision).toMatchObject({
      outcome: 'RollBack',
      revision: '2',
      reason: 'AutomaticRollback',
    });
    expect(decision.rollback?.reason).toContain('check e2e failed: 503');
  });

  it('looks again when a result for the promoted revision expires, to read it again', () => {
    const expiresAt = Date.parse(at(MINUTE));
    const passed = { index: 0, revision: '3', state: 'Passed' as const, message: 'ok', expiresAt };
    expect(decisionFor(checkedStaging({ staging: [passed] }), 'staging').retryAt).toBe(expiresAt);
  });

  it('while the window lasts, names the revision whose checks are read again', () => {
    const passed = {
      index: 0,
      revision: '3',
      state: 'Passed' as const,
      message: 'ok',
      expiresAt: 0,
    };
    const decision = decisionFor(checkedStaging({ staging: [passed] }), 'staging');
    expect(decision).toMatchObject({ outcome: 'UpToDate', verifying: { revision: '3' } });
    expect(decision.retryAt).toBe(decision.verifying?.until);
  });
});

describe('rollback decisions', () => {
  it.each(cases)('$name', (c) => {
    expectCase(c);
  });

  it('a rollback claim whose deadline passed without an outcome is retried as a rollback', () => {
    const mark = { from: '2', by: ['alice'], reason: 'errors up' };
    const input = pipeline({
      extra: {
        records: {
          prod: record({
            revision: '1',
            phase: 'Claimed',
            attempt: 1,
            lastAttemptedTime: at(-20 * MINUTE),
            deadlineTime: at(-10 * MINUTE),
            rollback: mark,
          }),
        },
      },
    });
    const decision = decisionFor(input, 'prod');
    expect(decision).toMatchObject({ outcome: 'RollBack', revision: '1', attempt: 2 });
    expect(decision.rollback).toMatchObject({ from: '2', automatic: false });
  });

  it('a live rollback claim holds the environment', () => {
    const input = pipeline({
      extra: {
        records: {
          prod: record({
            revision: '1',
            phase: 'Claimed',
            attempt: 1,
            deadlineTime: at(MINUTE),
            rollback: { from: '2', by: ['alice'], reason: 'r' },
          }),
        },
      },
    });
    expect(decisionFor(input, 'prod')).toMatchObject({
      outcome: 'AlreadyPromoted',
      reason: 'PromotionInProgress',
    });
  });

  it('a rollback request never counts as an approval of a gated promotion', () => {
    const input = pipeline({
      prod: [healthy('1')],
      prodPolicy: { manual: true },
      asks: [authorization('2', { decision: 'rollback', from: '0' })],
    });
    expect(decisionFor(input, 'prod')).toMatchObject({ outcome: 'WaitingApproval' });
  });
});
