/**
 * Shadow approvals and shadow checks, case by case: in mode Shadow they never hold; where they
 * would have held a promotion, the Promote carries `wouldHold` naming them (and the policy view
 * shows it), and the same gate enforced holds instead. The gateway's approval floors and
 * `manual: true` are enforced whatever the spec's approval mode says.
 */
import { describe, expect, it } from 'vitest';
import type { CheckResult, TargetStatus } from '../../../src/evaluate/decisions.js';
import { policyViewsOf } from '../../../src/evaluate/policy-view.js';
import type { GateFloor } from '../../../src/evaluate/gate.js';
import { PipelineEvaluator } from '../../../src/evaluation/pipeline-evaluator.js';
import type {
  AuthorizationRecord,
  CheckSpec,
  Pipeline,
  PipelineEnvironment,
} from '../../../src/pipeline/pipeline-resource.js';
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

/** The sample Pipeline with staging's promotion policy set to `promotion`. */
function withStaging(
  promotion: Partial<NonNullable<PipelineEnvironment['promotion']>>,
  approvals: AuthorizationRecord[] = [],
): Pipeline {
  const pipeline = samplePipeline(
    approvals.length === 0 ? undefined : { environments: { staging: { approvals } } },
  );
  const envs = pipeline.spec.environments.map((e) =>
    e.name === 'staging'
      ? { ...e, promotion: { strategy: { notification: {} }, ...e.promotion, ...promotion } }
      : e,
  );
  return { ...pipeline, spec: { ...pipeline.spec, environments: envs } };
}

function staging(
  pipeline: Pipeline,
  options: { floors?: Record<string, GateFloor>; checks?: CheckResult[] } = {},
) {
  const results = options.checks;
  const evaluator = new PipelineEvaluator(
    {
      policy: POLICY,
      floors: options.floors ?? {},
      ...(results === undefined ? {} : { checks: { resultsFor: () => ({ staging: results }) } }),
    },
    () => T0,
  );
  const evaluation = evaluator.evaluate(pipeline, targets);
  return { decision: evaluation.decisions[1], view: policyViewsOf(evaluation.input)?.staging };
}

const approval = (decision: 'approve' | 'reject'): AuthorizationRecord => ({
  principal: 'alice',
  kind: 'human',
  decision,
  revision: '2.0.0',
  time: new Date(T0 - 1000).toISOString(),
});

describe('a shadow approval', () => {
  it('lets the promotion through and records the approvals it lacked', () => {
    const { decision, view } = staging(
      withStaging({ approval: { minApprovals: 2, mode: 'Shadow' } }),
    );
    expect(decision).toMatchObject({ outcome: 'Promote' });
    const would = [{ gate: 'approval', name: 'approval', reason: 'ApprovalRequired' }];
    expect(decision?.wouldHold).toMatchObject(would);
    expect(decision?.wouldHold?.[0]?.message).toBe(
      'staging would wait (shadow approval): needs approval of 2.0.0: 0 of 2 approvals',
    );
    expect(view).toMatchObject({ revision: '2.0.0', holding: [], wouldHold: would });
  });

  it('records nothing once approved, and a rejection as ApprovalRejected', () => {
    const shadow = { approval: { mode: 'Shadow' as const } };
    const approved = staging(withStaging(shadow, [approval('approve')]));
    expect(approved.decision).toMatchObject({ outcome: 'Promote' });
    expect(approved.decision?.wouldHold).toBeUndefined();
    const rejected = staging(withStaging(shadow, [approval('reject')]));
    expect(rejected.decision).toMatchObject({ outcome: 'Promote' });
    expect(rejected.decision?.wouldHold).toMatchObject([{ reason: 'ApprovalRejected' }]);
  });

  it('holds once enforced', () => {
    const { decision } = staging(withStaging({ approval: { minApprovals: 2 } }));
    expect(decision).toMatchObject({ outcome: 'WaitingApproval', reason: 'ApprovalRequired' });
    expect(decision?.wouldHold).toBeUndefined();
  });

  it("never lifts the gateway's floor or manual: true", () => {
    const shadow = { approval: { mode: 'Shadow' as const } };
    const floored = staging(withStaging(shadow), { floors: { staging: { minApprovals: 1 } } });
    expect(floored.decision).toMatchObject({ outcome: 'WaitingApproval' });
    const manual = staging(withStaging({ ...shadow, manual: true }));
    expect(manual.decision).toMatchObject({ outcome: 'WaitingApproval' });
  });
});

const check = (name: string, mode?: 'Enforce' | 'Shadow'): CheckSpec => ({
  name,
  http: { url: `https://checks.example.com/${name}` },
  ...(mode === undefined ? {} : { mode }),
});
const result = (index: number, state: CheckResult['state']): CheckResult => ({
  index,
  revision: '2.0.0',
  state,
  message: state === 'Failed' ? 'error budget spent' : '',
  expiresAt: T0 + 60_000,
});

describe('a shadow check', () => {
  it.each([
    ['not read yet', [], 'CheckUnknown'],
    ['failed', [result(0, 'Failed')], 'CheckFailed'],
    ['pending', [result(0, 'Pending')], 'CheckPending'],
  ] as const)('lets the promotion through when %s and records it', (_, results, reason) => {
    const { decision, view } = staging(withStaging({ checks: [check('slo', 'Shadow')] }), {
      checks: [...results],
    });
    expect(decision).toMatchObject({ outcome: 'Promote' });
    expect(decision?.wouldHold).toMatchObject([{ gate: 'check', name: 'slo', reason }]);
    expect(view?.holding).toEqual([]);
  });

  it('records nothing once it passed', () => {
    const { decision } = staging(withStaging({ checks: [check('slo', 'Shadow')] }), {
      checks: [result(0, 'Passed')],
    });
    expect(decision).toMatchObject({ outcome: 'Promote' });
    expect(decision?.wouldHold).toBeUndefined();
  });

  it('holds once enforced, and is told apart from an enforced one by its place', () => {
    const failing = [result(0, 'Failed'), result(1, 'Passed')];
    const enforced = staging(withStaging({ checks: [check('slo'), check('smoke')] }), {
      checks: failing,
    });
    expect(enforced.decision).toMatchObject({ outcome: 'Waiting', reason: 'CheckFailed' });
    const mixed = staging(withStaging({ checks: [check('slo', 'Shadow'), check('smoke')] }), {
      checks: failing,
    });
    expect(mixed.decision).toMatchObject({ outcome: 'Promote' });
    expect(mixed.decision?.wouldHold).toMatchObject([{ name: 'slo', reason: 'CheckFailed' }]);
  });
});
