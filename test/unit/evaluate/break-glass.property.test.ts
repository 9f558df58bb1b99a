/**
 * A halt (or a freeze) is never bypassed except by a break-glass authorization: for any halts,
 * freeze, soak, approval gate, break-glass policy and records, an environment a halt or a
 * freeze holds is promoted only at a revision whose break-glass quorum for that environment is
 * met, as an oracle written here counts it; and where it is met, the decision is exactly the
 * one without halts and windows, so the soak, the checks and the approval gate still decide.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BreakGlassPolicy } from '../../../src/evaluate/decisions.js';
import type { EnvironmentDecision, EvaluationInput } from '../../../src/evaluate/decisions.js';
import { evaluate } from '../../../src/evaluate/evaluate.js';
import { haltsInForce } from '../../../src/evaluate/halts-gate.js';
import type { PromotionWindow } from '../../../src/windows/promotion-window.js';
import type {
  AuthorizationRecord,
  HaltRecord,
  PromotionSpec,
} from '../../../src/pipeline/pipeline-resource.js';
import { MINUTE, NOW, at, authorization, build, healthy } from '../../support/evaluate-builders.js';

const HOUR = 60 * MINUTE;
const GATED = ['staging', 'prod'] as const;
const revision = fc.constantFrom('1', '2', '3');
const principals = ['alice', 'bob', 'carol', 'oidc:sso#dave', 'ci:e2e', 'ci:other'] as const;
const listEntries = ['alice', 'bob', 'carol', 'group:sre', 'ci:e2e'] as const;

const policyArb: fc.Arbitrary<BreakGlassPolicy | undefined> = fc.option(
  fc.record({
    minApprovals: fc.integer({ min: 1, max: 3 }),
    // Often the whole list, so that quorums are met often enough to be tested.
    approvers: fc.oneof(fc.constant([...listEntries]), fc.subarray([...listEntries])),
    validForSeconds: fc.constantFrom(600, 3600, 7200),
  }),
  { nil: undefined },
);

const ownArb: fc.Arbitrary<PromotionSpec['breakGlass']> = fc.option(
  fc.record(
    { minApprovals: fc.integer({ min: 1, max: 4 }), approvers: fc.subarray([...listEntries]) },
    { requiredKeys: [] },
  ),
  { nil: undefined },
);

const recordArb: fc.Arbitrary<AuthorizationRecord> = fc
  .record({
    principal: fc.constantFrom(...principals),
    revision,
    decision: fc.constantFrom('break-glass' as const, 'break-glass' as const, 'approve' as const),
    ago: fc.integer({ min: -5, max: 130 }),
    sre: fc.boolean(),
  })
  .map(({ principal, revision: r, decision, ago, sre }) =>
    authorization(r, {
      principal,
      decision,
      kind: principal.startsWith('ci:') ? 'ci' : 'human',
      time: at(-ago * MINUTE),
      ...(sre && !principal.startsWith('ci:') ? { groups: ['sre'] } : {}),
      ...(decision === 'break-glass' ? { comment: 'incident' } : {}),
    }),
  );

const haltArb: fc.Arbitrary<HaltRecord> = fc
  .record({
    environment: fc.constantFrom(undefined, 'staging', 'prod'),
    expiresIn: fc.option(fc.integer({ min: -60, max: 60 }), { nil: undefined }),
  })
  .map(({ environment, expiresIn }) => ({
    id: 'h',
    ...(environment === undefined ? {} : { environment }),
    principal: 'carol',
    kind: 'human' as const,
    reason: 'incident',
    time: at(-2 * HOUR),
    ...(expiresIn === undefined ? {} : { expiresAt: at(expiresIn * MINUTE) }),
  }));

/** A deny window in force around NOW for a day. */
const FREEZE: PromotionWindow = {
  name: 'freeze',
  type: 'Deny',
  level: 'environment',
  authorizationsPassFreeze: false,
  schedule: {
    nextStart: (from) => (from <= NOW - HOUR ? NOW - HOUR : undefined),
    endOf: (start) => start + 24 * HOUR,
    maxDurationMs: 24 * HOUR,
    local: (ms) => new Date(ms).toISOString(),
  },
};
const FREEZE_SPEC = { name: 'freeze', type: 'Deny' as const, cron: '0 0 * * *', timeZone: 'UTC' };

interface World {
  input: EvaluationInput;
  /** The same world without halts and windows. */
  free: EvaluationInput;
  frozen: boolean;
}

const worldArb: fc.Arbitrary<World> = fc
  .record({
    revs: fc.tuple(revision, revision, revision),
    policy: policyArb,
    own: ownArb,
    records: fc.record({
      staging: fc.array(recordArb, { maxLength: 6 }),
      prod: fc.array(recordArb, { maxLength: 6 }),
    }),
    halts: fc.array(haltArb, { maxLength: 3 }),
    frozen: fc.boolean(),
    soak: fc.boolean(),
    gate: fc.constantFrom('none', 'alice', 'carol'),
  })
  .map((w) => {
    const [dev, staging, prod] = w.revs;
    const own: Omit<PromotionSpec, 'strategy'> = {
      ...(w.own === undefined ? {} : { breakGlass: w.own }),
      ...(w.soak ? { soak: { duration: '1h' } } : {}),
      ...(w.gate === 'none' ? {} : { approval: { approvers: [w.gate] } }),
    };
    const prodSpec = (windows: boolean): PromotionSpec => ({
      strategy: { notification: {} },
      ...own,
      ...(windows ? { windows: [{ ...FREEZE_SPEC, duration: '24h' }] } : {}),
    });
    const make = (withPolicy: boolean, held: boolean): EvaluationInput => {
      const input = build(
        [
          { name: 'dev', statuses: [healthy(dev)] },
          { name: 'staging', statuses: [healthy(staging)] },
          { name: 'prod', statuses: [healthy(prod)], promotion: prodSpec(held && w.frozen) },
        ],
        { authorizations: w.records },
      );
      return {
        ...input,
        ...(withPolicy && w.policy !== undefined ? { breakGlass: w.policy } : {}),
        ...(held ? { halts: w.halts } : {}),
        ...(held && w.frozen
          ? { windows: { environments: { prod: { ok: true as const, windows: [FREEZE] } } } }
          : {}),
      };
    };
    return { input: make(true, true), free: make(true, false), frozen: w.frozen };
  });

/** The oracle: whether `env`'s break-glass quorum for `rev` is met, counted independently. */
function quorumMet(input: EvaluationInput, env: string, rev: string): boolean {
  const policy = input.breakGlass;
  if (policy === undefined || policy.approvers.length === 0) return false;
  const own = input.spec.environments.find((e) => e.name === env)?.promotion?.breakGlass;
  const lists = [policy.approvers, own?.approvers ?? []].filter((l) => l.length > 0);
  const named = (list: readonly string[], r: AuthorizationRecord) =>
    list.includes(r.principal) || (r.groups ?? []).some((g) => list.includes(`group:${g}`));
  const counted = new Set<string>();
  for (const r of input.authorizations?.[env] ?? []) {
    const age = input.now - Date.parse(r.time);
    if (r.decision !== 'break-glass' || r.revision !== rev) continue;
    if (age >= policy.validForSeconds * 1000) continue;
    if (lists.every((list) => named(list, r))) counted.add(r.principal);
  }
  return counted.size >= Math.max(policy.minApprovals, own?.minApprovals ?? 1);
}

const decisionsOf = (input: EvaluationInput) =>
  new Map<string, EnvironmentDecision>(evaluate(input).decisions.map((d) => [d.environment, d]));

/** Whether a halt or the freeze holds `env` of the world at NOW. */
function stopped(world: World, env: string): boolean {
  return haltsInForce(world.input.halts, env, NOW).length > 0 || (world.frozen && env === 'prod');
}

describe('break-glass', () => {
  it('is the only thing that lets a halted or frozen environment promote', () => {
    fc.assert(
      fc.property(worldArb, (world) => {
        const decisions = decisionsOf(world.input);
        for (const env of GATED) {
          const d = decisions.get(env);
          if (!stopped(world, env) || d?.outcome !== 'Promote') continue;
          expect(quorumMet(world.input, env, d.revision ?? '')).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('with its quorum met, decides exactly as without halts and windows (soak, gate still hold)', () => {
    fc.assert(
      fc.property(worldArb, (world) => {
        const held = decisionsOf(world.input);
        const free = decisionsOf(world.free);
        for (const env of GATED) {
          const f = free.get(env);
          if (f?.revision === undefined || !quorumMet(world.input, env, f.revision)) continue;
          expect(held.get(env)).toEqual(f);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('without its quorum, holds and says how far the quorum is whenever break-glass is on', () => {
    fc.assert(
      fc.property(worldArb, (world) => {
        const held = decisionsOf(world.input);
        const free = decisionsOf(world.free);
        for (const env of GATED) {
          const f = free.get(env);
          if (f?.outcome !== 'Promote' || !stopped(world, env)) continue;
          if (quorumMet(world.input, env, f.revision ?? '')) continue;
          const d = held.get(env);
          expect(d?.outcome).toBe('Waiting');
          const on = (world.input.breakGlass?.approvers.length ?? 0) > 0;
          expect(/; break-glass: \d+ of \d+/.test(d?.message ?? '')).toBe(on);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('is never a way around a soak: a soaking prod is not promoted, quorum or not', () => {
    fc.assert(
      fc.property(worldArb, (world) => {
        const prod = world.input.spec.environments[2];
        if (prod?.promotion?.soak === undefined) return;
        expect(decisionsOf(world.input).get('prod')?.outcome).not.toBe('Promote');
      }),
      { numRuns: 500 },
    );
  });
});
