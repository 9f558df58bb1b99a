/**
 * What-if, case by case: a proposed deny window or soak changes the environments it holds and
 * names why; rules pick Pipelines by name, selector and environment; a policy whose windows or
 * selectors cannot be used is refused with every problem's place.
 */
import { describe, expect, it } from 'vitest';
import type { TargetStatus } from '../../../src/evaluate/decisions.js';
import { PipelineEvaluator } from '../../../src/evaluation/pipeline-evaluator.js';
import { whatIf } from '../../../src/evaluation/what-if.js';
import {
  compileWhatIfPolicy,
  proposedPipeline,
  type WhatIfPolicy,
  type WhatIfPolicyInput,
} from '../../../src/evaluation/what-if-policy.js';
import type { Pipeline } from '../../../src/pipeline/pipeline-resource.js';
import { samplePipeline, T0 } from '../../support/pipeline-fixtures.js';

const healthy = (revision: string): TargetStatus => ({
  location: { cluster: 'c', namespace: 'podinfo' },
  health: 'Healthy',
  revision,
  reason: 'Ready',
  message: '',
});
/** dev runs 2.0.0, staging and prod 1.0.0: staging is due, prod is up to date with staging. */
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
const evaluator = new PipelineEvaluator({ policy: POLICY, floors: {} }, () => T0);

/** Always inside: a day-long window starting every midnight. */
const FREEZE = {
  name: 'freeze',
  type: 'Deny' as const,
  cron: '0 0 * * *',
  timeZone: 'UTC',
  duration: 'P1D',
};

function compiled(input: WhatIfPolicyInput): WhatIfPolicy {
  const result = compileWhatIfPolicy(input);
  if (!result.ok) throw new Error(result.problems.join('; '));
  return result.policy;
}

function labelled(labels: Record<string, string>): Pipeline {
  const p = samplePipeline();
  return { ...p, metadata: { ...p.metadata, labels } };
}

function changedOf(policy: WhatIfPolicyInput, pipeline: Pipeline = samplePipeline()) {
  const answer = whatIf([{ pipeline, targets }], evaluator, compiled(policy), T0);
  return answer.pipelines[0]?.environments.filter((e) => e.changed) ?? [];
}

describe('what-if', () => {
  it('holds staging inside a proposed fleet deny window, naming the window', () => {
    const [staging, ...rest] = changedOf({ windows: [{ ...FREEZE, environments: ['staging'] }] });
    expect(rest).toEqual([]);
    expect(staging?.environment).toBe('staging');
    expect(staging?.current).toMatchObject({ decision: 'Promote', reason: 'UpstreamReady' });
    expect(staging?.proposed).toMatchObject({ decision: 'Waiting', reason: 'InDenyWindow' });
    expect(staging?.proposed.message).toContain('"freeze" (fleet)');
  });

  it('holds staging for a proposed soak that dev has not served yet', () => {
    const [staging] = changedOf({
      pipelines: [{ name: 'flux-system/podinfo', promotion: { soak: { duration: '1h' } } }],
    });
    expect(staging?.proposed).toMatchObject({ decision: 'Waiting', reason: 'Soaking' });
  });

  it('changes only the environments a rule names', () => {
    const policy = {
      pipelines: [
        { name: 'flux-system/podinfo', environments: ['prod'], promotion: { windows: [FREEZE] } },
      ],
    };
    expect(changedOf(policy)).toEqual([]);
  });

  it('picks Pipelines by selector, and a rule that picks none changes nothing', () => {
    const rule = { selector: 'app=shop', promotion: { manual: true } };
    expect(changedOf({ pipelines: [rule] }, labelled({ app: 'blog' }))).toEqual([]);
    const [staging] = changedOf({ pipelines: [rule] }, labelled({ app: 'shop' }));
    expect(staging?.proposed).toMatchObject({ decision: 'WaitingApproval' });
  });

  it('leaves a Pipeline no rule picks as the same object', () => {
    const pipeline = samplePipeline();
    const policy = compiled({
      pipelines: [{ name: 'other/podinfo', promotion: { manual: true } }],
    });
    expect(proposedPipeline(pipeline, policy)).toBe(pipeline);
  });

  it('lets a later rule replace what an earlier one set', () => {
    const pipeline = proposedPipeline(
      samplePipeline(),
      compiled({
        pipelines: [
          { name: 'flux-system/podinfo', promotion: { soak: { duration: '1h' } } },
          { selector: 'tier!=batch', promotion: { soak: { duration: '0s' } } },
        ],
      }),
    );
    expect(pipeline.spec.environments.map((e) => e.promotion?.soak?.duration)).toEqual([
      undefined,
      '0s',
      '0s',
    ]);
    expect(pipeline.spec.environments[2]?.promotion?.manual).toBe(true);
  });

  it('an empty fleet window list lifts the configured windows', () => {
    const fleet = compiled({ windows: [FREEZE] }).windows ?? [];
    const frozen = new PipelineEvaluator({ policy: POLICY, floors: {}, windows: fleet }, () => T0);
    const answer = whatIf(
      [{ pipeline: samplePipeline(), targets }],
      frozen,
      compiled({ windows: [] }),
      T0,
    );
    const staging = answer.pipelines[0]?.environments[1];
    expect(staging?.current.reason).toBe('InDenyWindow');
    expect(staging?.proposed.decision).toBe('Promote');
    expect(answer.changed).toBe(1);
  });
});

describe('compileWhatIfPolicy', () => {
  it('names every window and selector it cannot use', () => {
    const result = compileWhatIfPolicy({
      windows: [{ ...FREEZE, timeZone: 'Mars/Olympus' }],
      pipelines: [
        { selector: 'app in (', promotion: {} },
        { name: 'a/b', promotion: { windows: [{ ...FREEZE, cron: 'not a cron' }] } },
      ],
    });
    expect(result.ok).toBe(false);
    const problems = result.ok ? [] : result.problems;
    expect(problems).toHaveLength(3);
    expect(problems[0]).toMatch(/^\/windows\/0: timeZone/);
    expect(problems[1]).toMatch(/^\/pipelines\/0\/selector: /);
    expect(problems[2]).toMatch(/^\/pipelines\/1\/promotion\/windows\/0: cron/);
  });
});
