/**
 * A train never promotes a combination its members were not seen verified together upstream:
 * over random upstream histories (each member healthy or not, at random revisions, step by
 * step), random member gates and failures, the observation, the release step and the evaluator
 * with its train gate together never give a member a Promote whose revision is not its own in
 * the current release, nor a release whose combination was not observed at one step.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../../src/evaluate/evaluate.js';
import {
  recordObservation,
  verifiedTogether,
  type Combination,
  type ObservedAt,
} from '../../../src/evaluate/train-combinations.js';
import {
  nextRelease,
  type MemberStand,
  type Release,
} from '../../../src/evaluate/train-release.js';
import type { TargetStatus } from '../../../src/evaluate/decisions.js';
import { canonicalJson } from '../../../src/json/canonical-json.js';
import { combinationOf } from '../../../src/trains/combination-digest.js';
import { build, healthy, unhealthy } from '../../support/evaluate-builders.js';

const MEMBERS = ['api', 'web', 'worker'] as const;
type Member = (typeof MEMBERS)[number];
/** web is promoted after api (dependsOn). */
const DEPENDS_ON: Record<Member, Member[]> = { api: [], web: ['api'], worker: [] };

const memberStep = fc.record({
  healthy: fc.boolean(),
  revision: fc.constantFrom('1', '2', '3'),
  gatesMet: fc.boolean(),
  fails: fc.integer({ min: 0, max: 19 }).map((n) => n === 0),
});
const step = fc.record({ api: memberStep, web: memberStep, worker: memberStep });
const history = fc.array(step, { minLength: 1, maxLength: 25 });

type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;

function upstreamOf(s: Step): Record<Member, TargetStatus[]> {
  const one = (m: Member) => [s[m].healthy ? healthy(s[m].revision) : unhealthy(s[m].revision)];
  return { api: one('api'), web: one('web'), worker: one('worker') };
}

interface Model {
  observed: ObservedAt[];
  seen: Set<string>;
  release: Release | undefined;
  prod: Record<Member, string>;
  promotions: number;
}

function stands(s: Step, model: Model, release: Combination): Record<string, MemberStand> {
  const out: Record<string, MemberStand> = {};
  for (const m of MEMBERS) {
    const wanted = release.members[m];
    out[m] = { gatesMet: s[m].gatesMet, arrived: model.prod[m] === wanted, failed: s[m].fails };
  }
  return out;
}

/** One step: observe, decide the release, evaluate every member and apply its Promote. */
function advance(model: Model, s: Step, now: number): void {
  const together = verifiedTogether(upstreamOf(s));
  if (together !== undefined) {
    model.observed = recordObservation(model.observed, combinationOf(together), now, 10);
    model.seen.add(canonicalJson(together));
  }
  model.release = nextRelease({
    observed: model.observed,
    ...(model.release === undefined ? {} : { current: model.release }),
    standsFor: (release) => stands(s, model, release),
    arrivedAll: (c) => MEMBERS.every((m) => model.prod[m] === c.members[m]),
    suspended: false,
    now,
  });
  if (model.release !== undefined)
    expect(model.seen.has(canonicalJson(model.release.members))).toBe(true);
  const upstream = upstreamOf(s);
  for (const m of MEMBERS) {
    const input = build(
      [
        { name: 'staging', statuses: upstream[m] },
        { name: 'prod', statuses: [healthy(model.prod[m])] },
      ],
      {
        trains: {
          prod: {
            train: 'shop/release',
            member: m,
            ...(model.release === undefined ? {} : { release: model.release }),
            dependsOn: DEPENDS_ON[m].map((d) => ({ name: d, running: model.prod[d] })),
          },
        },
      },
    );
    const decision = evaluate(input).decisions[1];
    if (decision?.outcome !== 'Promote') continue;
    expect(model.release?.members[m]).toBe(decision.revision);
    expect(model.release?.state).toBe('Promoting');
    for (const d of DEPENDS_ON[m]) expect(model.prod[d]).toBe(model.release?.members[d]);
    model.prod[m] = decision.revision ?? '';
    model.promotions += 1;
  }
}

describe('a release train', () => {
  it('promotes only combinations observed verified together upstream, in dependsOn order', () => {
    let promotions = 0;
    fc.assert(
      fc.property(history, (steps) => {
        const model: Model = {
          observed: [],
          seen: new Set(),
          release: undefined,
          prod: { api: '0', web: '0', worker: '0' },
          promotions: 0,
        };
        steps.forEach((s, i) => {
          advance(model, s, i * 1000);
        });
        promotions += model.promotions;
      }),
      { numRuns: 300 },
    );
    // The property is not vacuous: the histories do let trains through.
    expect(promotions).toBeGreaterThan(0);
  });
});
