/**
 * The policy view and the decision agree, for random Pipelines with random halts, windows,
 * soaks, check results, approvals and records (dev -> prod, prod deciding): the view says a
 * gate holds exactly when the evaluator, given that gate's input alone, holds prod with that
 * gate's reason; the first gate the view names is the one the decision names; a decision that
 * went past the gates (a promotion, an approval wait, a rejection) has no gate holding in the
 * view; and the view is about the revision the decision is about.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CheckResult } from '../../../src/evaluate/decisions.js';
import type { EnvironmentDecision, EvaluationInput } from '../../../src/evaluate/decisions.js';
import { evaluate } from '../../../src/evaluate/evaluate.js';
import { policyViewsOf, type PolicyPart } from '../../../src/evaluate/policy-view.js';
import type { PromotionWindow } from '../../../src/windows/promotion-window.js';
import type {
  HaltRecord,
  PromotionRecord,
  PromotionSpec,
} from '../../../src/pipeline/pipeline-resource.js';
import {
  MINUTE,
  NOW,
  at,
  authorization,
  build,
  healthy,
  record,
  unhealthy,
} from '../../support/evaluate-builders.js';

const HOUR = 60 * MINUTE;
const PARTS: readonly PolicyPart[] = ['halts', 'window', 'soak', 'checks'];
const REASONS: Readonly<Record<PolicyPart, readonly string[]>> = {
  halts: ['Halted'],
  window: ['InDenyWindow', 'OutsidePromotionWindow', 'InvalidPromotionWindow'],
  soak: ['Soaking', 'SoakInvalid'],
  checks: ['CheckFailed', 'CheckUnknown', 'CheckPending'],
};
const partOf = (reason: string) => PARTS.find((p) => REASONS[p].includes(reason));

const revision = fc.constantFrom('1', '2', '3');

const haltArb: fc.Arbitrary<HaltRecord> = fc
  .record({
    environment: fc.constantFrom(undefined, 'dev', 'prod'),
    expiresIn: fc.option(fc.integer({ min: -60, max: 60 }), { nil: undefined }),
    lifted: fc.boolean(),
  })
  .map(({ environment, expiresIn, lifted }) => ({
    id: 'h',
    ...(environment === undefined ? {} : { environment }),
    principal: 'alice',
    kind: 'human' as const,
    reason: 'incident',
    time: at(-HOUR),
    ...(expiresIn === undefined ? {} : { expiresAt: at(expiresIn * MINUTE) }),
    ...(lifted ? { liftedAt: at(-MINUTE) } : {}),
  }));

/** A window every `period` from an offset around NOW, lasting less than the period. */
const windowArb: fc.Arbitrary<PromotionWindow> = fc
  .record({
    type: fc.constantFrom('Allow' as const, 'Deny' as const),
    period: fc.constantFrom(HOUR, 24 * HOUR),
    offset: fc.integer({ min: -180, max: 180 }),
    share: fc.integer({ min: 1, max: 9 }),
    pass: fc.boolean(),
  })
  .map(({ type, period, offset, share, pass }) => {
    const start = NOW + offset * MINUTE;
    const duration = (period * share) / 10;
    return {
      name: `${type.toLowerCase()}-${String(offset)}`,
      type,
      level: 'environment' as const,
      authorizationsPassFreeze: pass,
      schedule: {
        nextStart: (from: number) => start + Math.ceil((from - start) / period) * period,
        endOf: (s: number) => s + duration,
        maxDurationMs: duration,
        local: (ms: number) => new Date(ms).toISOString(),
      },
    };
  });

const checkArb = fc.record({
  state: fc.constantFrom(...(['Passed', 'Failed', 'Pending', 'Unknown'] as const)),
  revision,
  expiresIn: fc.integer({ min: -2, max: 5 }),
});

/** Each gate's input, and what prod decides besides. */
const worldArb = fc.record({
  dev: fc.option(revision, { nil: undefined }),
  prod: revision,
  halts: fc.array(haltArb, { maxLength: 3 }),
  windows: fc.array(windowArb, { maxLength: 3 }),
  soak: fc.option(fc.constantFrom('0s', '20m', '1h', '9000h'), { nil: undefined }),
  healthyFor: fc.option(fc.tuple(revision, fc.integer({ min: 0, max: 90 })), { nil: undefined }),
  checks: fc.option(fc.array(checkArb, { minLength: 1, maxLength: 2 }), { nil: undefined }),
  gated: fc.boolean(),
  approved: fc.constantFrom('none', 'approve', 'reject'),
  record: fc.option(
    fc.record({
      revision,
      phase: fc.constantFrom('Claimed' as const, 'Failed' as const, 'Succeeded' as const),
      ago: fc.integer({ min: 0, max: 30 }),
    }),
    { nil: undefined },
  ),
});
type World = typeof worldArb extends fc.Arbitrary<infer W> ? W : never;

/** The input of `w`, with only the gates named in `gates`. */
function inputOf(w: World, gates: readonly PolicyPart[] = PARTS): EvaluationInput {
  const has = (p: PolicyPart) => gates.includes(p);
  const windows = has('window') ? w.windows : [];
  const checks = has('checks') ? (w.checks ?? []) : [];
  const promotion: PromotionSpec = {
    strategy: { notification: {} },
    ...(w.gated ? { approval: { minApprovals: 1 } } : {}),
    ...(has('soak') && w.soak !== undefined ? { soak: { duration: w.soak } } : {}),
    ...(checks.length === 0
      ? {}
      : { checks: checks.map((_, i) => ({ name: `c${String(i)}`, http: { url: 'https://x/' } })) }),
    ...(windows.length === 0
      ? {}
      : {
          windows: windows.map((x) => ({
            ...{ name: x.name, type: x.type, cron: '0 * * * *', timeZone: 'UTC', duration: '1m' },
          })),
        }),
  };
  const prodRecord: PromotionRecord | undefined =
    w.record === undefined
      ? undefined
      : record({
          revision: w.record.revision,
          phase: w.record.phase,
          attempt: 1,
          lastAttemptedTime: at(-w.record.ago * MINUTE),
        });
  const input = build(
    [
      { name: 'dev', statuses: [w.dev === undefined ? unhealthy('1') : healthy(w.dev)] },
      { name: 'prod', statuses: [healthy(w.prod)], promotion },
    ],
    {
      records: { prod: prodRecord },
      authorizations: {
        prod:
          w.approved === 'none' || w.dev === undefined
            ? []
            : [authorization(w.dev, { decision: w.approved === 'reject' ? 'reject' : 'approve' })],
      },
    },
  );
  if (has('halts')) input.halts = w.halts;
  if (windows.length > 0) input.windows = { environments: { prod: { ok: true, windows } } };
  if (w.healthyFor !== undefined) {
    const [rev, minutes] = w.healthyFor;
    input.soak = { dev: { revision: rev, time: at(-minutes * MINUTE) } };
  }
  const results: CheckResult[] = checks.map((c, index) => ({
    index,
    revision: c.revision,
    state: c.state,
    message: 'why',
    expiresAt: NOW + c.expiresIn * MINUTE,
  }));
  if (results.length > 0) input.checks = { prod: results };
  return input;
}

const prodDecision = (input: EvaluationInput): EnvironmentDecision => {
  const found = evaluate(input).decisions[1];
  if (found === undefined) throw new Error('no decision for prod');
  return found;
};
const prodView = (input: EvaluationInput) => policyViewsOf(input)?.prod;
/** Outcomes of decisions that went past every policy gate. */
const PAST_GATES = new Set(['Promote', 'WaitingApproval', 'Rejected']);

describe('the policy view and the decision', () => {
  it('agree: the first gate the view holds with is the one the decision names', () => {
    fc.assert(
      fc.property(worldArb, (w) => {
        const input = inputOf(w);
        const decision = prodDecision(input);
        const view = prodView(input);
        const part = partOf(decision.reason);
        if (part !== undefined) expect(view?.holding?.[0]).toBe(part);
        if (PAST_GATES.has(decision.outcome)) expect(view?.holding ?? []).toEqual([]);
        if (decision.revision !== undefined && view !== undefined)
          expect(view.revision).toBe(decision.revision);
      }),
      { numRuns: 2000 },
    );
  });

  it('say a gate holds exactly when, asked alone, it holds the decision', () => {
    fc.assert(
      fc.property(worldArb, (w) => {
        const view = prodView(inputOf(w));
        // Gates are asked only of a decision that would otherwise go past them.
        const ungated = prodDecision(inputOf(w, []));
        if (!PAST_GATES.has(ungated.outcome)) return;
        for (const part of PARTS) {
          const alone = inputOf(w, [part]);
          const held = partOf(prodDecision(alone).reason) === part;
          expect(view?.holding?.includes(part) ?? false).toBe(held);
          expect(prodView(alone)?.holding?.includes(part) ?? false).toBe(held);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('show a part exactly where the environment has that gate', () => {
    fc.assert(
      fc.property(worldArb, (w) => {
        const view = prodView(inputOf(w));
        const halted = w.halts.some(
          (h) =>
            h.liftedAt === undefined &&
            h.environment !== 'dev' &&
            (h.expiresAt === undefined || Date.parse(h.expiresAt) > NOW),
        );
        expect(view?.halts !== undefined).toBe(halted);
        expect(view?.window !== undefined).toBe(w.windows.length > 0);
        expect(view?.soak !== undefined).toBe(w.soak !== undefined && w.soak !== '0s');
        expect(view?.checks?.length ?? 0).toBe(w.checks?.length ?? 0);
      }),
      { numRuns: 1000 },
    );
  });
});
