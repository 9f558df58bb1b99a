/**
 * A halt in force is never bypassed: at no instant before its expiry does a halted environment
 * get a Promote decision, whatever its upstream, records or approvals; and once every halt of an
 * environment has expired (or was lifted), its decision is exactly the one without halts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../../src/evaluate/evaluate.js';
import { haltEnd, haltsInForce } from '../../../src/evaluate/halts-gate.js';
import type { EvaluationInput } from '../../../src/evaluate/decisions.js';
import type { HaltRecord, PromotionRecord } from '../../../src/pipeline/pipeline-resource.js';
import {
  MINUTE,
  NOW,
  at,
  authorization,
  build,
  healthy,
  record,
} from '../../support/evaluate-builders.js';

const ENVS = ['dev', 'staging', 'prod'] as const;
const revision = fc.constantFrom('1', '2', '3');

const recordArb: fc.Arbitrary<PromotionRecord | undefined> = fc.option(
  fc
    .record({
      revision,
      phase: fc.constantFrom('Claimed' as const, 'Failed' as const, 'Succeeded' as const),
      ago: fc.integer({ min: 0, max: 120 }),
    })
    .map(({ revision: r, phase, ago }) =>
      record({ revision: r, phase, attempt: 1, lastAttemptedTime: at(-ago * MINUTE) }),
    ),
  { nil: undefined },
);

const haltArb: fc.Arbitrary<HaltRecord> = fc
  .record({
    id: fc.constantFrom('a', 'b', 'c'),
    environment: fc.constantFrom(undefined, 'staging', 'prod'),
    expiresIn: fc.option(fc.integer({ min: -60, max: 60 }), { nil: undefined }),
  })
  .map(({ id, environment, expiresIn }) => ({
    id,
    ...(environment === undefined ? {} : { environment }),
    principal: 'alice',
    kind: 'human' as const,
    reason: 'incident',
    time: at(-2 * 60 * MINUTE),
    ...(expiresIn === undefined ? {} : { expiresAt: at(expiresIn * MINUTE) }),
  }));

/** dev -> staging -> prod at random revisions and records; prod gated and approved or not. */
const worldArb = fc
  .record({
    revs: fc.tuple(revision, revision, revision),
    records: fc.tuple(recordArb, recordArb),
    gated: fc.boolean(),
    approved: fc.boolean(),
    halts: fc.array(haltArb, { maxLength: 4 }),
    offset: fc.integer({ min: -90, max: 90 }),
  })
  .map((w) => {
    const [dev, staging, prod] = w.revs;
    const approval = { strategy: { notification: {} }, approval: { minApprovals: 1 } };
    const base = build(
      [
        { name: 'dev', statuses: [healthy(dev)] },
        { name: 'staging', statuses: [healthy(staging)] },
        { name: 'prod', statuses: [healthy(prod)], ...(w.gated ? { promotion: approval } : {}) },
      ],
      {
        records: { staging: w.records[0], prod: w.records[1] },
        authorizations: { prod: w.approved ? [authorization(staging)] : [] },
        now: NOW + w.offset * MINUTE,
      },
    );
    return { base, halts: w.halts };
  });

const decisionsOf = (input: EvaluationInput) =>
  new Map(evaluate(input).decisions.map((d) => [d.environment, d]));

describe('stop-the-line halts', () => {
  it('never let a halted environment promote before the halt expires', () => {
    fc.assert(
      fc.property(worldArb, ({ base, halts }) => {
        const held = decisionsOf({ ...base, halts });
        for (const env of ENVS) {
          const inForce = haltsInForce(halts, env, base.now);
          const decision = held.get(env);
          if (inForce.length === 0) continue;
          expect(decision?.outcome).not.toBe('Promote');
          if (decision?.reason !== 'Halted') continue;
          // Looked at again when the last halt holding it ends (never, while one has no end).
          const end = Math.max(...inForce.map(haltEnd));
          expect(decision.retryAt).toBe(Number.isFinite(end) ? end : undefined);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('decide as without halts for every environment no halt holds (expired, lifted or other)', () => {
    fc.assert(
      fc.property(worldArb, ({ base, halts }) => {
        const held = decisionsOf({ ...base, halts });
        const free = decisionsOf(base);
        for (const env of ENVS) {
          if (haltsInForce(halts, env, base.now).length > 0) continue;
          expect(held.get(env)).toEqual(free.get(env));
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('hold every environment that would promote while a halt of it is in force', () => {
    fc.assert(
      fc.property(worldArb, ({ base, halts }) => {
        const held = decisionsOf({ ...base, halts });
        const free = decisionsOf(base);
        for (const env of ENVS) {
          if (free.get(env)?.outcome !== 'Promote') continue;
          if (haltsInForce(halts, env, base.now).length === 0) continue;
          expect(held.get(env)).toMatchObject({ outcome: 'Waiting', reason: 'Halted' });
        }
      }),
      { numRuns: 1000 },
    );
  });
});
