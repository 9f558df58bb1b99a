/**
 * Shadow windows, case by case: a window in mode Shadow never holds; where it would have held
 * a promotion, the Promote carries `wouldHold` naming it and the policy view shows the same, and
 * the same window enforced holds instead. Fleet windows and a Pipeline's own alike; a soak too.
 */
import { describe, expect, it } from 'vitest';
import type { TargetStatus } from '../../../src/evaluate/decisions.js';
import { policyViewsOf } from '../../../src/evaluate/policy-view.js';
import { PipelineEvaluator } from '../../../src/evaluation/pipeline-evaluator.js';
import type { Pipeline, PromotionWindowSpec } from '../../../src/pipeline/pipeline-resource.js';
import { compileWindow } from '../../../src/windows/compile.js';
import type { FleetWindow } from '../../../src/windows/promotion-window.js';
import { samplePipeline, T0 } from '../../support/pipeline-fixtures.js';

const healthy = (revision: string): TargetStatus => ({
  location: { cluster: 'c', namespace: 'podinfo' },
  health: 'Healthy',
  revision,
  reason: 'Ready',
  message: '',
});
/** dev runs 2.0.0, staging 1.0.0: staging is due. */
const targets = {
  dev: [healthy('2.0.0'), healthy('2.0.0')],
  staging: [healthy('1.0.0')],
  prod: [healthy('1.0.0')],
};
const POLICY = {
  maxAttempts: 3,
  backoffBaseMs: 1000,
  backoffMaxMs: 60_000,
  claimTimeoutMs: 60_000,
};

/** In force at T0 (every day, all day) unless `cron` says otherwise. */
function window(fields: Partial<PromotionWindowSpec> = {}): PromotionWindowSpec {
  return {
    name: 'freeze',
    type: 'Deny',
    cron: '0 0 * * *',
    timeZone: 'UTC',
    duration: 'P1D',
    ...fields,
  };
}

function fleet(...specs: PromotionWindowSpec[]): FleetWindow[] {
  return specs.map((spec) => {
    const compiled = compileWindow(spec, 'fleet');
    if (!compiled.ok) throw new Error(compiled.problem);
    return { ...compiled.value, environments: ['staging'] };
  });
}

function staging(windows: FleetWindow[], pipeline: Pipeline = samplePipeline()) {
  const evaluator = new PipelineEvaluator({ policy: POLICY, floors: {}, windows }, () => T0);
  const evaluation = evaluator.evaluate(pipeline, targets);
  return { decision: evaluation.decisions[1], view: policyViewsOf(evaluation.input)?.staging };
}

describe('a shadow window', () => {
  it('lets the promotion through and records what it would have held', () => {
    const { decision, view } = staging(fleet(window({ mode: 'Shadow' })));
    expect(decision).toMatchObject({ outcome: 'Promote', reason: 'UpstreamReady' });
    const would = [{ gate: 'window', name: 'freeze', reason: 'InDenyWindow' }];
    expect(decision?.wouldHold).toMatchObject(would);
    expect(decision?.wouldHold?.[0]?.message).toContain(
      'inside shadow deny window "freeze" (fleet)',
    );
    expect(view).toMatchObject({ revision: '2.0.0', holding: [], wouldHold: would });
    expect(view?.window).toBeUndefined();
  });

  it('holds once enforced, and records nothing then', () => {
    const { decision, view } = staging(fleet(window({ mode: 'Enforce' })));
    expect(decision).toMatchObject({ outcome: 'Waiting', reason: 'InDenyWindow' });
    expect(decision?.wouldHold).toBeUndefined();
    expect(view?.holding).toEqual(['window']);
    expect(view?.wouldHold).toBeUndefined();
  });

  it('records nothing while it would not hold, and an allow window outside would', () => {
    const never = window({ mode: 'Shadow', cron: '0 0 1 1 *', duration: '1h' });
    expect(staging(fleet(never)).decision?.wouldHold).toBeUndefined();
    const allow = window({
      name: 'office',
      type: 'Allow',
      mode: 'Shadow',
      cron: '0 0 1 1 *',
      duration: '1h',
    });
    expect(staging(fleet(allow)).decision?.wouldHold).toMatchObject([
      { gate: 'window', name: 'office', reason: 'OutsidePromotionWindow' },
    ]);
  });

  it('a shadow soak lets the promotion through and records what it would have held', () => {
    const pipeline = samplePipeline();
    const env = pipeline.spec.environments[1];
    if (env !== undefined)
      env.promotion = { strategy: { notification: {} }, soak: { duration: '1h', mode: 'Shadow' } };
    const { decision, view } = staging([], pipeline);
    expect(decision?.outcome).toBe('Promote');
    expect(decision?.wouldHold).toMatchObject([{ gate: 'soak', name: 'dev', reason: 'Soaking' }]);
    expect(view).toMatchObject({ holding: [], soak: { duration: '1h' } });
    expect(view?.wouldHold).toEqual(decision?.wouldHold);
    if (env?.promotion?.soak !== undefined) env.promotion.soak.mode = 'Enforce';
    const enforced = staging([], pipeline);
    expect(enforced.decision).toMatchObject({ outcome: 'Waiting', reason: 'Soaking' });
    expect(enforced.view?.holding).toEqual(['soak']);
  });

  it('does the same in a Pipeline spec, beside an enforced window that lets it pass', () => {
    const pipeline = samplePipeline();
    const env = pipeline.spec.environments[1];
    if (env !== undefined)
      env.promotion = {
        strategy: { notification: {} },
        windows: [
          window({ mode: 'Shadow' }),
          window({ name: 'never', cron: '0 0 1 1 *', duration: '1h' }),
        ],
      };
    const { decision, view } = staging([], pipeline);
    expect(decision?.outcome).toBe('Promote');
    expect(decision?.wouldHold).toMatchObject([{ name: 'freeze', reason: 'InDenyWindow' }]);
    expect(view?.window).toMatchObject({ open: true });
  });
});
