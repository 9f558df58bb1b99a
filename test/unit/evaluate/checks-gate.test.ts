/**
 * The external-checks gate (src/evaluate/checks-gate.ts): a table of what an environment decides from
 * its checks' results, and properties over random results: an Unknown, missing, stale, Pending
 * or Failed check never lets a revision through; only a current Passed result of every check
 * for exactly the upstream revision does, and then the gate is as if absent.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CheckResult, CheckState } from '../../../src/evaluate/decisions.js';
import { evaluate, nextWakeup } from '../../../src/evaluate/evaluate.js';
import type { EvaluationInput } from '../../../src/evaluate/decisions.js';
import type { CheckSpec, PromotionSpec } from '../../../src/pipeline/pipeline-resource.js';
import {
  MINUTE,
  NOW,
  authorization,
  decisionFor,
  deepFreeze,
  devProd,
  expectCase,
  record,
  type Case,
} from '../../support/evaluate-builders.js';

const E2E: CheckSpec = { name: 'e2e', commitStatus: { contexts: ['ci/e2e'] } };
const HEALTH: CheckSpec = { name: 'health', http: { url: 'https://status.example.com/' } };

/** prod (upstream dev at 1.1.0, prod at 1.0.0) with `checks`, and their `results`. */
function withChecks(
  results: CheckResult[] | undefined,
  checks: CheckSpec[] = [E2E, HEALTH],
  extra: Partial<EvaluationInput> & { promotion?: PromotionSpec } = {},
): EvaluationInput {
  const promotion: PromotionSpec = { strategy: { notification: {} }, checks, ...extra.promotion };
  const input = devProd('1.1.0', '1.0.0', extra);
  const prod = input.spec.environments[1];
  if (prod !== undefined) prod.promotion = promotion;
  return results === undefined ? input : { ...input, checks: { prod: results } };
}

function result(index: number, state: CheckState, fields: Partial<CheckResult> = {}): CheckResult {
  return {
    index,
    revision: '1.1.0',
    state,
    message: `${state.toLowerCase()} because`,
    expiresAt: NOW + MINUTE,
    ...fields,
  };
}

const READY = 'dev is healthy at 1.1.0 on all 2 targets';

const cases: Case[] = [
  {
    name: 'every check passed: promote, as without checks',
    input: withChecks([result(0, 'Passed'), result(1, 'Passed')]),
    env: 'prod',
    want: { outcome: 'Promote', reason: 'UpstreamReady', retryAt: undefined },
  },
  {
    name: 'no result read yet: CheckUnknown, no time to wait for (the result re-checks)',
    input: withChecks(undefined),
    env: 'prod',
    want: {
      outcome: 'Waiting',
      reason: 'CheckUnknown',
      revision: '1.1.0',
      message: `${READY}; prod waits for its checks on 1.1.0: e2e not checked yet; health not checked yet`,
      retryAt: undefined,
    },
  },
  {
    name: 'one pending: CheckPending until the result expires',
    input: withChecks([
      result(0, 'Pending', { message: 'ci/e2e pending at abc', expiresAt: NOW + 30_000 }),
      result(1, 'Passed'),
    ]),
    env: 'prod',
    want: {
      outcome: 'Waiting',
      reason: 'CheckPending',
      message: `${READY}; prod waits for its checks on 1.1.0: e2e pending: ci/e2e pending at abc; health passed`,
      retryAt: NOW + 30_000,
    },
  },
  {
    name: 'one failed: CheckFailed naming it and why',
    input: withChecks([
      result(0, 'Passed'),
      result(1, 'Failed', { message: 'answered HTTP 404, expected 2xx' }),
    ]),
    env: 'prod',
    want: {
      outcome: 'Waiting',
      reason: 'CheckFailed',
      message: `${READY}; prod waits for its checks on 1.1.0: e2e passed; health failed: answered HTTP 404, expected 2xx`,
    },
  },
  {
    name: 'failed wins over unknown and pending',
    input: withChecks(
      [result(0, 'Unknown'), result(1, 'Failed'), result(2, 'Pending')],
      [E2E, HEALTH, { name: 'smoke', http: { url: 'https://x/' } }],
    ),
    env: 'prod',
    want: { reason: 'CheckFailed' },
  },
  {
    name: 'unknown wins over pending, and decides nothing',
    input: withChecks([
      result(0, 'Pending'),
      result(1, 'Unknown', { message: 'could not be reached' }),
    ]),
    env: 'prod',
    want: { outcome: 'Waiting', reason: 'CheckUnknown' },
  },
  {
    name: 'a result for another revision does not count',
    input: withChecks([result(0, 'Passed'), result(1, 'Passed', { revision: '1.0.9' })]),
    env: 'prod',
    want: { reason: 'CheckUnknown', message: expect.stringContaining('health not checked yet') },
  },
  {
    name: 'a pass older than its cache time is renewed first (CheckPending, no retryAt)',
    input: withChecks([result(0, 'Passed'), result(1, 'Passed', { expiresAt: NOW })]),
    env: 'prod',
    want: {
      reason: 'CheckPending',
      message: expect.stringContaining('health passed, being checked again'),
      retryAt: NOW + MINUTE,
    },
  },
  {
    name: 'an expired failure still holds (its re-read is under way)',
    input: withChecks([result(0, 'Failed', { expiresAt: NOW - 1 }), result(1, 'Passed')]),
    env: 'prod',
    want: { reason: 'CheckFailed', retryAt: NOW + MINUTE },
  },
  {
    name: 'the newest of two results for one check decides',
    input: withChecks([
      result(0, 'Failed', { expiresAt: NOW + 10 }),
      result(0, 'Passed', { expiresAt: NOW + 20 }),
      result(1, 'Passed'),
    ]),
    env: 'prod',
    want: { outcome: 'Promote' },
  },
  {
    name: 'checks come before the approval gate: all passed, then approvals decide',
    input: withChecks([result(0, 'Passed'), result(1, 'Passed')], [E2E, HEALTH], {
      promotion: { strategy: { notification: {} }, approval: { minApprovals: 1 } },
    }),
    env: 'prod',
    want: { outcome: 'WaitingApproval', reason: 'ApprovalRequired' },
  },
  {
    name: 'an approval does not pass a failed check',
    input: withChecks([result(0, 'Failed'), result(1, 'Passed')], [E2E, HEALTH], {
      promotion: { strategy: { notification: {} }, approval: { minApprovals: 1 } },
      authorizations: { prod: [authorization('1.1.0')] },
    }),
    env: 'prod',
    want: { outcome: 'Waiting', reason: 'CheckFailed' },
  },
  {
    name: 'a revision already promoted is not held by its checks',
    input: withChecks(undefined, [E2E], {
      records: { prod: record({ revision: '1.1.0', succeeded: true, phase: 'Succeeded' }) },
    }),
    env: 'prod',
    want: { outcome: 'AlreadyPromoted' },
  },
  {
    name: 'an empty list of checks holds nothing',
    input: withChecks(undefined, []),
    env: 'prod',
    want: { outcome: 'Promote' },
  },
];

describe('the checks gate', () => {
  it.each(cases)('$name', (c) => {
    expectCase(c);
  });

  it('stays silent for an environment up to date, and for the source', () => {
    const input = withChecks(undefined);
    const upToDate = { ...input, targets: { ...input.targets, prod: input.targets.dev ?? [] } };
    expect(decisionFor(upToDate, 'prod').outcome).toBe('UpToDate');
    expect(decisionFor(upToDate, 'dev').outcome).toBe('Source');
  });

  it('gives the same message for the same results whatever the time (no flapping status)', () => {
    const results = [
      result(0, 'Pending', { expiresAt: NOW + 10 * MINUTE }),
      result(1, 'Passed', { expiresAt: NOW + 10 * MINUTE }),
    ];
    const early = decisionFor(withChecks(results), 'prod');
    const later = decisionFor(withChecks(results, undefined, { now: NOW + 5 * MINUTE }), 'prod');
    expect(later.message).toBe(early.message);
    expect(nextWakeup(evaluate(withChecks(results)))).toBe(NOW + 10 * MINUTE);
  });
});

const stateArb = fc.constantFrom<CheckState>('Passed', 'Failed', 'Pending', 'Unknown');
const resultArb = (count: number): fc.Arbitrary<CheckResult> =>
  fc.record({
    index: fc.integer({ min: 0, max: count - 1 }),
    revision: fc.constantFrom('1.1.0', '1.1.0', '1.0.0'),
    state: stateArb,
    message: fc.string({ maxLength: 20 }),
    expiresAt: fc.integer({ min: NOW - MINUTE, max: NOW + 5 * MINUTE }),
  });

const scenarioArb = fc.integer({ min: 1, max: 4 }).chain((count) =>
  fc.record({
    count: fc.constant(count),
    results: fc.array(resultArb(count), { maxLength: 8 }),
  }),
);

/** What the gate must conclude: the newest result per check for 1.1.0, current and Passed. */
function allPassed(count: number, results: readonly CheckResult[]): boolean {
  return Array.from({ length: count }, (_, index) => {
    const newest = newestOf(results, index);
    return newest?.state === 'Passed' && newest.expiresAt > NOW;
  }).every(Boolean);
}

describe('checks gate properties', () => {
  const specs = (count: number): CheckSpec[] =>
    Array.from({ length: count }, (_, i) => ({
      name: `c${String(i)}`,
      http: { url: 'https://x/' },
    }));

  it('promotes exactly when every check has a current Passed result for the revision', () => {
    fc.assert(
      fc.property(scenarioArb, ({ count, results }) => {
        const input = deepFreeze(withChecks(results, specs(count)));
        const decision = decisionFor(input, 'prod');
        expect(decision.outcome === 'Promote').toBe(allPassed(count, results));
        if (decision.outcome !== 'Promote') {
          expect(decision.outcome).toBe('Waiting');
          expect(['CheckFailed', 'CheckUnknown', 'CheckPending']).toContain(decision.reason);
          expect(decision.revision).toBe('1.1.0');
          // A time to look again is always ahead, never now or past (it would spin).
          if (decision.retryAt !== undefined) expect(decision.retryAt).toBeGreaterThan(NOW);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('never lets a revision through while any check is Unknown or has no result', () => {
    fc.assert(
      fc.property(scenarioArb, fc.integer({ min: 0, max: 3 }), ({ count, results }, which) => {
        const index = which % count;
        // Check `index` is Unknown (current) or has no result for 1.1.0 at all.
        const others = results.filter((r) => r.index !== index);
        for (const variant of [
          others,
          [...others, result(index, 'Unknown', { expiresAt: NOW + 10 * MINUTE })],
        ]) {
          const decision = decisionFor(withChecks(variant, specs(count)), 'prod');
          expect(decision.outcome).toBe('Waiting');
          expect(decision.reason).not.toBe('UpstreamReady');
          const failed = Array.from({ length: count }, (_, i) => newestOf(variant, i)).some(
            (r) => r?.state === 'Failed',
          );
          expect(decision.reason).toBe(failed ? 'CheckFailed' : 'CheckUnknown');
        }
      }),
      { numRuns: 300 },
    );
  });

  it('with every check passed, decides as if the environment had no checks', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.boolean(), (count, approval) => {
        const promotion: PromotionSpec = {
          strategy: { notification: {} },
          ...(approval ? { approval: { minApprovals: 1 } } : {}),
        };
        const passed = Array.from({ length: count }, (_, i) => result(i, 'Passed'));
        const gated = decisionFor(withChecks(passed, specs(count), { promotion }), 'prod');
        const plain = devProd('1.1.0', '1.0.0');
        const env = plain.spec.environments[1];
        if (env !== undefined) env.promotion = promotion;
        expect(gated).toEqual(decisionFor(plain, 'prod'));
      }),
    );
  });
});

/** The result of check `index` for 1.1.0 that decides: the first with the latest expiry. */
function newestOf(all: readonly CheckResult[], index: number): CheckResult | undefined {
  return all
    .filter((r) => r.index === index && r.revision === '1.1.0')
    .reduce<CheckResult | undefined>(
      (best, r) => (best === undefined || r.expiresAt > best.expiresAt ? r : best),
      undefined,
    );
}
