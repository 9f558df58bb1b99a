/**
 * What-if under the policy the fleet has equals the live decision: for random Pipelines (target
 * states, stored records, approvals, healthy-since, per-environment soak, approval, manual and
 * windows), random fleet windows and random instants, a policy that restates the Pipeline's own
 * gate fields and the fleet's windows answers, per environment, exactly what the gateway's
 * PipelineEvaluator decides, and reports nothing changed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TargetStatus } from '../../../src/evaluate/decisions.js';
import { PipelineEvaluator } from '../../../src/evaluation/pipeline-evaluator.js';
import { whatIf } from '../../../src/evaluation/what-if.js';
import {
  compileWhatIfPolicy,
  type WhatIfPolicyInput,
  type WhatIfPromotion,
} from '../../../src/evaluation/what-if-policy.js';
import type { Pipeline, PromotionSpec } from '../../../src/pipeline/pipeline-resource.js';
import { compileWindow } from '../../../src/windows/compile.js';
import type { FleetWindow } from '../../../src/windows/promotion-window.js';
import { samplePipeline, T0 } from '../../support/pipeline-fixtures.js';

const MINUTE = 60_000;
const ENVS = ['dev', 'staging', 'prod'] as const;
const revision = fc.constantFrom('1.0.0', '1.1.0', '2.0.0');
const iso = (ms: number) => new Date(ms).toISOString();

const statusArb: fc.Arbitrary<TargetStatus> = fc
  .record({ health: fc.constantFrom('Healthy', 'Healthy', 'Unhealthy', 'Unknown'), revision })
  .map(({ health, revision: r }) => ({
    location: { cluster: 'c', namespace: 'podinfo' },
    health,
    ...(health === 'Unknown' ? {} : { revision: r }),
    reason: health === 'Healthy' ? 'Ready' : 'NotReady',
    message: '',
  }));

const windowSpecArb = fc.record({
  name: fc.constantFrom('freeze', 'hours', 'night'),
  type: fc.constantFrom('Allow' as const, 'Deny' as const),
  cron: fc.constantFrom('0 * * * *', '30 9 * * 1-5', '0 0 * * *'),
  timeZone: fc.constantFrom('UTC', 'Europe/Berlin'),
  duration: fc.constantFrom('20m', '8h', 'P1D'),
  authorizationsPassFreeze: fc.boolean(),
});

const gatesArb = fc.record(
  {
    soak: fc.constantFrom('0s', '10m', '1h').map((duration) => ({ duration })),
    manual: fc.boolean(),
    approval: fc.record({ minApprovals: fc.integer({ min: 1, max: 2 }) }),
    windows: fc.uniqueArray(windowSpecArb, { maxLength: 2, selector: (w) => w.name }),
  },
  { requiredKeys: [] },
);

const worldArb = fc.record({
  statuses: fc.tuple(statusArb, statusArb, statusArb),
  gates: fc.tuple(gatesArb, gatesArb),
  fleet: fc.uniqueArray(
    fc.record({ window: windowSpecArb, environments: fc.subarray(['staging', 'prod']) }),
    { maxLength: 2, selector: (f) => f.window.name },
  ),
  record: fc.option(
    fc.record({
      revision,
      phase: fc.constantFrom('Claimed' as const, 'Failed' as const, 'Succeeded' as const),
    }),
    { nil: undefined },
  ),
  approvedBy: fc.subarray(['alice', 'bob']),
  healthyForMin: fc.option(fc.integer({ min: 0, max: 120 }), { nil: undefined }),
  offsetMin: fc.integer({ min: 0, max: 7 * 24 * 60 }),
});
type World = typeof worldArb extends fc.Arbitrary<infer W> ? W : never;

function pipelineOf(w: World): { pipeline: Pipeline; targets: Record<string, TargetStatus[]> } {
  const [dev, staging] = w.statuses;
  const now = T0;
  const promoted = w.record;
  const pipeline = samplePipeline({
    environments: {
      dev: {
        ...(w.healthyForMin === undefined || dev.revision === undefined
          ? {}
          : {
              healthySince: { revision: dev.revision, time: iso(now - w.healthyForMin * MINUTE) },
            }),
      },
      staging: {
        ...(w.healthyForMin === undefined || staging.revision === undefined
          ? {}
          : {
              healthySince: {
                revision: staging.revision,
                time: iso(now - w.healthyForMin * MINUTE),
              },
            }),
      },
      prod: {
        ...(promoted === undefined
          ? {}
          : {
              promotion: {
                revision: promoted.revision,
                phase: promoted.phase,
                attempt: 1,
                lastAttemptedTime: iso(now - 5 * MINUTE),
                succeeded: promoted.phase === 'Succeeded',
              },
            }),
        approvals: w.approvedBy.map((principal, i) => ({
          id: `a${String(i)}`,
          principal,
          kind: 'human' as const,
          revision: staging.revision ?? '1.0.0',
          decision: 'approve' as const,
          time: iso(now - MINUTE),
        })),
      },
    },
  });
  pipeline.spec.environments.forEach((env, i) => {
    const gates = i === 0 ? undefined : w.gates[i - 1];
    if (gates === undefined) return;
    const own: PromotionSpec = env.promotion ?? { strategy: { notification: {} } };
    env.promotion = { ...own, ...gates };
  });
  const targets = Object.fromEntries(
    ENVS.map((name, i) => {
      const status = w.statuses[i] ?? dev;
      const count = pipeline.spec.environments[i]?.targets.length ?? 1;
      return [name, Array.from({ length: count }, () => status)];
    }),
  );
  return { pipeline, targets };
}

/** A policy that says again what the Pipeline and the fleet already have. */
function restated(w: World, pipeline: Pipeline): WhatIfPolicyInput {
  const rules = pipeline.spec.environments.slice(1).map((env) => {
    const { approval, manual, soak, windows, checks } = env.promotion ?? { strategy: {} };
    const promotion: WhatIfPromotion = {
      ...(approval === undefined ? {} : { approval }),
      ...(manual === undefined ? {} : { manual }),
      ...(soak === undefined ? {} : { soak }),
      ...(windows === undefined ? {} : { windows }),
      ...(checks === undefined ? {} : { checks }),
    };
    return { name: 'flux-system/podinfo', environments: [env.name], promotion };
  });
  return {
    windows: w.fleet.map((f) => ({ ...f.window, environments: f.environments })),
    pipelines: rules,
  };
}

function fleetOf(w: World): FleetWindow[] {
  return w.fleet.flatMap((f) => {
    const compiled = compileWindow(f.window, 'fleet');
    return compiled.ok ? [{ ...compiled.value, environments: f.environments }] : [];
  });
}

const POLICY = {
  maxAttempts: 3,
  backoffBaseMs: 1000,
  backoffMaxMs: 60_000,
  claimTimeoutMs: 60_000,
};

describe('what-if under the current policy', () => {
  it('equals the live decision of every environment and changes nothing', () => {
    fc.assert(
      fc.property(worldArb, (w) => {
        const now = T0 + w.offsetMin * MINUTE;
        const { pipeline, targets } = pipelineOf(w);
        const settings = { policy: POLICY, floors: {}, windows: fleetOf(w) };
        const evaluator = new PipelineEvaluator(settings, () => now);
        const compiled = compileWhatIfPolicy(restated(w, pipeline));
        if (!compiled.ok) throw new Error(compiled.problems.join('; '));
        const answer = whatIf([{ pipeline, targets }], evaluator, compiled.policy, now);
        const live = evaluator.evaluate(pipeline, targets).decisions;
        const envs = answer.pipelines[0]?.environments ?? [];
        expect(answer.changed).toBe(0);
        expect(
          envs.map((e) => [e.proposed.decision, e.proposed.reason, e.proposed.message]),
        ).toEqual(live.map((d) => [d.outcome, d.reason, d.message]));
        expect(envs.map((e) => e.current)).toEqual(envs.map((e) => e.proposed));
      }),
      { numRuns: 200 },
    );
    // A hang detector, not a speed bar: 200 worlds compile their windows (about 8 s on a machine
    // busy with another build), past the unit project's 30 s when the machine is busier still.
  }, 120_000);
});
