import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluate, nextWakeup } from '../../../src/evaluate/evaluate.js';
import type { EvaluationInput, TargetStatus } from '../../../src/evaluate/decisions.js';
import type { PromotionRecord } from '../../../src/pipeline/pipeline-resource.js';
import {
  MINUTE,
  NOW,
  at,
  authorization,
  build,
  deepFreeze,
  target,
  type EnvSketch,
} from '../../support/evaluate-builders.js';

const REVISIONS = ['1.0.0', '1.0.1', '2.0.0'] as const;
const revisionArb = fc.constantFrom(...REVISIONS);

// Weighted so that most pipelines get past their Unknowns and reach the record/approval rules.
const healthArb = fc.oneof(
  { arbitrary: fc.constant('Healthy' as const), weight: 12 },
  { arbitrary: fc.constant('Unhealthy' as const), weight: 2 },
  { arbitrary: fc.constant('Unknown' as const), weight: 1 },
);

const targetArb = (base: string): fc.Arbitrary<TargetStatus> =>
  fc
    .record({
      health: healthArb,
      // Mostly the environment's common revision; sometimes another one, or none.
      revision: fc.oneof(
        { arbitrary: fc.constant(base), weight: 10 },
        { arbitrary: revisionArb, weight: 2 },
        { arbitrary: fc.constant(undefined), weight: 1 },
      ),
    })
    .map(({ health, revision }) => target(health, revision));

// Statuses sometimes fall short of the spec's targets, to exercise the "missing = Unknown" rule.
const envArb = fc.record({
  statuses: revisionArb.chain((base) => fc.array(targetArb(base), { minLength: 1, maxLength: 3 })),
  missing: fc.oneof(
    { arbitrary: fc.constant(0), weight: 15 },
    { arbitrary: fc.constant(1), weight: 1 },
  ),
  manual: fc.option(fc.boolean(), { nil: undefined }),
});

// `ago` is how long before `now` the attempt was made (a string = an unreadable time).
const recordArb = fc.option(
  fc.record({
    revision: revisionArb,
    ago: fc.oneof(
      { arbitrary: fc.integer({ min: -MINUTE, max: 30 * MINUTE }), weight: 10 },
      { arbitrary: fc.constantFrom('garbage', ''), weight: 1 },
    ),
    succeeded: fc.boolean(),
    attempt: fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }),
    phase: fc.option(fc.constantFrom('Claimed' as const, 'Succeeded' as const, 'Failed' as const), {
      nil: undefined,
    }),
  }),
  { nil: undefined },
);

type RecordSketch = typeof recordArb extends fc.Arbitrary<infer T> ? T : never;

function toRecord(r: RecordSketch, now: number): PromotionRecord | undefined {
  if (r === undefined) return undefined;
  const { ago, ...rest } = r;
  return { ...rest, lastAttemptedTime: typeof ago === 'string' ? ago : at(now - NOW - ago) };
}

const inputArb: fc.Arbitrary<EvaluationInput> = fc
  .record({
    envs: fc.array(envArb, { minLength: 1, maxLength: 4 }),
    records: fc.array(recordArb, { minLength: 4, maxLength: 4 }),
    approvals: fc.array(fc.option(revisionArb, { nil: undefined }), { minLength: 4, maxLength: 4 }),
    manual: fc.option(fc.boolean(), { nil: undefined }),
    policy: fc.record({
      maxAttempts: fc.integer({ min: 1, max: 5 }),
      backoffBaseMs: fc.integer({ min: 1, max: 10 * MINUTE }),
      backoffMaxMs: fc.integer({ min: 1, max: 30 * MINUTE }),
      claimTimeoutMs: fc.integer({ min: 1, max: 20 * MINUTE }),
    }),
    now: fc.integer({ min: -MINUTE, max: 120 * MINUTE }).map((d) => NOW + d),
  })
  .map(({ envs, records, approvals, manual, policy, now }) => {
    const names = envs.map((_, i) => `env${i}`);
    const sketches: EnvSketch[] = envs.map((e, i) => {
      const sketch: EnvSketch = {
        name: names[i]!,
        statuses: e.statuses.slice(0, e.statuses.length - e.missing),
        specTargets: e.statuses.length,
      };
      if (e.manual !== undefined) sketch.promotion = { manual: e.manual, strategy: {} };
      return sketch;
    });
    return build(sketches, {
      records: Object.fromEntries(names.map((n, i) => [n, toRecord(records[i], now)])),
      authorizations: Object.fromEntries(
        names.map((n, i) => {
          const revision = approvals[i];
          return [n, revision === undefined ? [] : [authorization(revision)]];
        }),
      ),
      policy,
      now,
      ...(manual === undefined ? {} : { promotion: { manual, strategy: {} } }),
    });
  });

// dev -> prod where dev is healthy at 2.0.0 and prod's record is always about 2.0.0: every run
// reaches the record rules (claims, backoff, budget), which random pipelines reach rarely.
const recordFocusedArb: fc.Arbitrary<EvaluationInput> = fc
  .record({ input: inputArb, record: recordArb.filter((r) => r !== undefined) })
  .map(({ input, record }) =>
    build(
      [
        { name: 'dev', statuses: [target('Healthy', '2.0.0'), target('Healthy', '2.0.0')] },
        { name: 'prod', statuses: [target('Healthy', '1.0.0')] },
      ],
      {
        records: { prod: toRecord({ ...record, revision: '2.0.0' }, input.now) },
        policy: input.policy,
        now: input.now,
      },
    ),
  );

const anyArb = fc.oneof(inputArb, recordFocusedArb);

/** The statuses the evaluator must see: spec targets in order, missing ones Unknown. */
function effective(input: EvaluationInput, i: number): TargetStatus['health'][] {
  const env = input.spec.environments[i]!;
  const given = input.targets[env.name] ?? [];
  return env.targets.map((_, k) => given[k]?.health ?? 'Unknown');
}

function effectiveRevisions(input: EvaluationInput, i: number): (string | undefined)[] {
  const env = input.spec.environments[i]!;
  const given = input.targets[env.name] ?? [];
  return env.targets.map((_, k) => given[k]?.revision);
}

const RUNS = { numRuns: 1000 };

describe('evaluate: properties', () => {
  it('(a) Promote(R) to env i only when env i-1 is all Healthy at R and envs 0..i have no Unknown', () => {
    fc.assert(
      fc.property(anyArb, (input) => {
        evaluate(input).decisions.forEach((d, i) => {
          if (d.outcome !== 'Promote') return;
          expect(i).toBeGreaterThan(0);
          expect(effective(input, i - 1).every((h) => h === 'Healthy')).toBe(true);
          expect(effectiveRevisions(input, i - 1).every((r) => r === d.revision)).toBe(true);
          for (let j = 0; j <= i; j++) expect(effective(input, j)).not.toContain('Unknown');
        });
      }),
      RUNS,
    );
  });

  it('(b) if env j has an Unknown target, neither env j nor any env k > j decides Promote', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const decisions = evaluate(input).decisions;
        const j = input.spec.environments.findIndex((_, i) =>
          effective(input, i).includes('Unknown'),
        );
        if (j < 0) return;
        expect(decisions.slice(j).filter((d) => d.outcome === 'Promote')).toEqual([]);
        for (const d of decisions.slice(j + 1)) expect(d.outcome).toBe('Unknown');
      }),
      RUNS,
    );
  });

  it('(c) is deterministic and does not mutate its (frozen) input', () => {
    fc.assert(
      fc.property(anyArb, (input) => {
        const copy = structuredClone(input);
        const frozen = deepFreeze(input);
        const first = evaluate(frozen);
        expect(evaluate(frozen)).toEqual(first);
        expect(evaluate(copy)).toEqual(first);
        expect(frozen).toEqual(copy);
      }),
      RUNS,
    );
  });

  it('(d) never promotes env 0, and only env 0 is the Source', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const outcomes = evaluate(input).decisions.map((d) => d.outcome);
        expect(outcomes[0]).toBe('Source');
        expect(outcomes.slice(1)).not.toContain('Source');
      }),
      RUNS,
    );
  });

  it('(e) gives exactly one decision per environment, in spec order, each with a reason and message', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const decisions = evaluate(input).decisions;
        expect(decisions.map((d) => d.environment)).toEqual(
          input.spec.environments.map((e) => e.name),
        );
        for (const d of decisions) {
          expect(d.reason).toMatch(/^[A-Z][A-Za-z]+$/);
          expect(d.message).not.toBe('');
        }
      }),
      RUNS,
    );
  });

  it('(f) a Succeeded record for (env, R) yields Promote(env, R) only as a later attempt correcting a drift', () => {
    fc.assert(
      fc.property(anyArb, (input) => {
        for (const d of evaluate(input).decisions) {
          const r = input.records[d.environment];
          const succeeded =
            r !== undefined && (r.phase === 'Succeeded' || (r.phase === undefined && r.succeeded));
          if (!succeeded || r.revision !== d.revision || d.outcome !== 'Promote') continue;
          expect(d.reason).toBe('DriftCorrection');
          expect(d.attempt).toBeGreaterThan(r.attempt ?? 1);
          expect(d.drift?.promoted).toBe(r.revision);
          // Some target does not run R: an environment that runs it is never promoted again.
          expect(input.targets[d.environment]?.some((t) => t.revision !== r.revision)).toBe(true);
        }
      }),
      RUNS,
    );
  });

  it('(g) a Promote attempt is between 1 and maxAttempts; a retry has a record for R', () => {
    fc.assert(
      fc.property(anyArb, (input) => {
        for (const d of evaluate(input).decisions) {
          if (d.outcome !== 'Promote') continue;
          expect(d.attempt).toBeGreaterThanOrEqual(1);
          expect(d.attempt).toBeLessThanOrEqual(input.policy.maxAttempts);
          if (d.attempt! > 1) expect(input.records[d.environment]?.revision).toBe(d.revision);
        }
      }),
      RUNS,
    );
  });

  it("(h) at a RetryBackoff decision's retryAt the backoff is over", () => {
    fc.assert(
      fc.property(anyArb, (input) => {
        evaluate(input).decisions.forEach((d, i) => {
          if (d.reason !== 'RetryBackoff') return;
          const later = evaluate({ ...input, now: d.retryAt! }).decisions[i]!;
          expect(later.reason).not.toBe('RetryBackoff');
          expect(later.outcome).toBe('Promote');
        });
      }),
      RUNS,
    );
  });

  it('(i) nextWakeup is the minimum retryAt, and never in the past of a backoff', () => {
    fc.assert(
      fc.property(anyArb, (input) => {
        const evaluation = evaluate(input);
        const times = evaluation.decisions.flatMap((d) =>
          d.retryAt === undefined ? [] : [d.retryAt],
        );
        expect(nextWakeup(evaluation)).toBe(times.length === 0 ? undefined : Math.min(...times));
        for (const d of evaluation.decisions) {
          if (d.reason === 'RetryBackoff') expect(d.retryAt).toBeGreaterThan(input.now);
        }
      }),
      RUNS,
    );
  });
});
