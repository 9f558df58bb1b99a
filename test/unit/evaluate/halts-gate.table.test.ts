/** The stop-the-line gate, case by case: what a halt holds, what it never holds, and until when. */
import { describe, expect, it } from 'vitest';
import { haltsGate, haltsInForce } from '../../../src/evaluate/halts-gate.js';
import { POLICY_GATES } from '../../../src/evaluate/policy-gates.js';
import type { EvaluationInput } from '../../../src/evaluate/decisions.js';
import type { HaltRecord } from '../../../src/pipeline/pipeline-resource.js';
import {
  MINUTE,
  NOW,
  at,
  authorization,
  build,
  decisionFor,
  devProd,
  expectCase,
  healthy,
  record,
  type Case,
} from '../../support/evaluate-builders.js';

function halt(overrides: Partial<HaltRecord> = {}): HaltRecord {
  return {
    id: 'h1',
    environment: 'prod',
    principal: 'alice',
    kind: 'human',
    reason: 'incident 42',
    time: at(-10 * MINUTE),
    ...overrides,
  };
}

/** dev at 1.0.1 -> prod at 1.0.0 (prod would promote), with `halts` stored. */
function halted(halts: HaltRecord[], extra: Parameters<typeof devProd>[2] = {}): EvaluationInput {
  return { ...devProd('1.0.1', '1.0.0', extra), halts };
}

/** dev -> staging -> prod, each a revision behind the one before: two would promote. */
function threeEnvs(halts: HaltRecord[]): EvaluationInput {
  const input = build([
    { name: 'dev', statuses: [healthy('3')] },
    { name: 'staging', statuses: [healthy('2')] },
    { name: 'prod', statuses: [healthy('1')] },
  ]);
  return { ...input, halts };
}

const cases: Case[] = [
  {
    name: 'no halts: promoted once upstream is ready',
    input: halted([]),
    env: 'prod',
    want: { outcome: 'Promote', reason: 'UpstreamReady' },
  },
  {
    name: 'a halt of prod without expiry: held until lifted, no retryAt',
    input: halted([halt()]),
    env: 'prod',
    want: { outcome: 'Waiting', reason: 'Halted', revision: '1.0.1', retryAt: undefined },
  },
  {
    name: 'a halt of prod expiring in 5 minutes: held, looked at again then',
    input: halted([halt({ expiresAt: at(5 * MINUTE) })]),
    env: 'prod',
    want: { outcome: 'Waiting', reason: 'Halted', retryAt: NOW + 5 * MINUTE },
  },
  {
    name: 'a halt expiring exactly now no longer holds',
    input: halted([halt({ expiresAt: at(0) })]),
    env: 'prod',
    want: { outcome: 'Promote', reason: 'UpstreamReady' },
  },
  {
    name: 'a halt 1 ms before its expiry still holds',
    input: halted([halt({ expiresAt: at(1) })]),
    env: 'prod',
    want: { outcome: 'Waiting', reason: 'Halted', retryAt: NOW + 1 },
  },
  {
    name: 'a halt of another environment does not hold prod',
    input: halted([halt({ environment: 'staging' })]),
    env: 'prod',
    want: { outcome: 'Promote' },
  },
  {
    name: 'a Pipeline-wide halt holds prod',
    input: halted([halt({ environment: undefined })]),
    env: 'prod',
    want: { outcome: 'Waiting', reason: 'Halted' },
  },
  {
    name: 'an unreadable expiry holds until lifted',
    input: halted([halt({ expiresAt: 'soon' })]),
    env: 'prod',
    want: { outcome: 'Waiting', reason: 'Halted', retryAt: undefined },
  },
  {
    name: 'two halts: the later expiry is when to look again',
    input: halted([halt({ expiresAt: at(MINUTE) }), halt({ id: 'h2', expiresAt: at(9 * MINUTE) })]),
    env: 'prod',
    want: { outcome: 'Waiting', reason: 'Halted', retryAt: NOW + 9 * MINUTE },
  },
  {
    name: 'a retry after a failure is held too',
    input: halted([halt()], {
      records: {
        prod: record({ revision: '1.0.1', phase: 'Failed', lastAttemptedTime: at(-MINUTE * 60) }),
      },
    }),
    env: 'prod',
    want: { outcome: 'Waiting', reason: 'Halted' },
  },
  {
    name: 'without the halt that record retries (the case above is held by the halt alone)',
    input: halted([], {
      records: {
        prod: record({ revision: '1.0.1', phase: 'Failed', lastAttemptedTime: at(-MINUTE * 60) }),
      },
    }),
    env: 'prod',
    want: { outcome: 'Promote', reason: 'RetryAfterFailure' },
  },
  {
    name: 'an environment already at the revision stays UpToDate (nothing to hold)',
    input: { ...devProd('1.0.1', '1.0.1'), halts: [halt()] },
    env: 'prod',
    want: { outcome: 'UpToDate' },
  },
  {
    name: 'a promotion in progress is not undone by a halt',
    input: halted([halt()], {
      records: { prod: record({ revision: '1.0.1', phase: 'Claimed', attempt: 1 }) },
    }),
    env: 'prod',
    want: { outcome: 'AlreadyPromoted' },
  },
  {
    name: 'the source environment is never held (it is never promoted)',
    input: halted([halt({ environment: undefined })]),
    env: 'dev',
    want: { outcome: 'Source' },
  },
];

describe('the halts gate', () => {
  it.each(cases)('$name', (c) => {
    expectCase(c);
  });

  it('is asked first, before the windows, soak and checks gates', () => {
    expect(POLICY_GATES[0]).toBe(haltsGate);
  });

  it('names who halted, why, since when and until when', () => {
    const d = decisionFor(halted([halt({ expiresAt: at(5 * MINUTE) })]), 'prod');
    expect(d.message).toContain('prod is halted by alice');
    expect(d.message).toContain(`since ${at(-10 * MINUTE)}`);
    expect(d.message).toContain('(incident 42)');
    expect(d.message).toContain(`until ${at(5 * MINUTE)}`);
    const wide = decisionFor(halted([halt({ environment: undefined })]), 'prod');
    expect(wide.message).toContain('the whole Pipeline is halted by alice');
    expect(wide.message).toContain('until it is lifted');
  });

  it('holds an approved revision of a gated environment', () => {
    const input = build(
      [
        { name: 'dev', statuses: [healthy('1.0.1')] },
        {
          name: 'prod',
          statuses: [healthy('1.0.0')],
          promotion: { strategy: { notification: {} }, approval: { minApprovals: 1 } },
        },
      ],
      { authorizations: { prod: [authorization('1.0.1')] } },
    );
    expect(decisionFor(input, 'prod').outcome).toBe('Promote');
    expect(decisionFor({ ...input, halts: [halt()] }, 'prod')).toMatchObject({
      outcome: 'Waiting',
      reason: 'Halted',
    });
  });

  it('holds only the halted environment of three, or every one for a Pipeline-wide halt', () => {
    const outcomes = (input: EvaluationInput) =>
      ['staging', 'prod'].map((e) => decisionFor(input, e).outcome);
    expect(outcomes(threeEnvs([]))).toEqual(['Promote', 'Promote']);
    expect(outcomes(threeEnvs([halt()]))).toEqual(['Promote', 'Waiting']);
    expect(outcomes(threeEnvs([halt({ environment: undefined })]))).toEqual(['Waiting', 'Waiting']);
  });

  it('lists the halts in force, longest first, ignoring expired ones', () => {
    const halts = [
      halt({ id: 'old', expiresAt: at(-1) }),
      halt({ id: 'short', expiresAt: at(MINUTE) }),
      halt({ id: 'forever' }),
      halt({ id: 'other', environment: 'staging' }),
    ];
    expect(haltsInForce(halts, 'prod', NOW).map((h) => h.id)).toEqual(['forever', 'short']);
    expect(haltsInForce(undefined, 'prod', NOW)).toEqual([]);
  });
});
