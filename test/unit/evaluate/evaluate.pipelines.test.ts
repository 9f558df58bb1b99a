import { describe, expect, it } from 'vitest';
import { evaluate, nextWakeup, promotions } from '../../../src/evaluate/evaluate.js';
import type { EvaluationInput } from '../../../src/evaluate/decisions.js';
import {
  MINUTE,
  NOW,
  build,
  decisionFor,
  devProd,
  healthy,
  record,
  unhealthy,
  unknown,
} from '../../support/evaluate-builders.js';

describe('evaluate: whole pipelines', () => {
  const summary = (input: EvaluationInput) =>
    evaluate(input).decisions.map((d) => [d.environment, d.outcome, d.reason, d.revision ?? null]);

  it('promotes each stage to what its upstream has verified, not to the newest revision', () => {
    const input = build([
      { name: 'dev', statuses: [healthy('2.0.0'), healthy('2.0.0')] },
      { name: 'staging', statuses: [healthy('1.0.0')] },
      { name: 'prod', statuses: [healthy('0.9.0'), healthy('0.9.0', 'eu')] },
    ]);
    expect(summary(input)).toEqual([
      ['dev', 'Source', 'Ready', '2.0.0'],
      ['staging', 'Promote', 'UpstreamReady', '2.0.0'],
      ['prod', 'Promote', 'UpstreamReady', '1.0.0'],
    ]);
  });

  it('waits behind a stage that is rolling out', () => {
    const input = build([
      { name: 'dev', statuses: [healthy('2.0.0')] },
      { name: 'staging', statuses: [unhealthy('2.0.0', 'Reconciling')] },
      { name: 'prod', statuses: [healthy('1.0.0')] },
    ]);
    expect(summary(input)).toEqual([
      ['dev', 'Source', 'Ready', '2.0.0'],
      ['staging', 'UpToDate', 'RollingOut', '2.0.0'],
      ['prod', 'Waiting', 'UpstreamNotReady', null],
    ]);
  });

  it('reports a four-stage pipeline fully deployed', () => {
    const envs = ['dev', 'qa', 'staging', 'prod'].map((name) => ({
      name,
      statuses: [healthy('3.1.4'), healthy('3.1.4')],
    }));
    expect(summary(build(envs)).map((row) => row[2])).toEqual([
      'Ready',
      'Deployed',
      'Deployed',
      'Deployed',
    ]);
  });

  it('an Unknown in the middle stops every later stage, and the stage itself', () => {
    const input = build([
      { name: 'dev', statuses: [healthy('2.0.0')] },
      { name: 'qa', statuses: [healthy('1.0.0')] },
      { name: 'staging', statuses: [healthy('1.0.0'), unknown('Timeout')] },
      { name: 'prod', statuses: [healthy('0.9.0')] },
    ]);
    expect(summary(input)).toEqual([
      ['dev', 'Source', 'Ready', '2.0.0'],
      ['qa', 'Promote', 'UpstreamReady', '2.0.0'],
      ['staging', 'Unknown', 'TargetUnknown', null],
      ['prod', 'Unknown', 'UpstreamUnknown', null],
    ]);
  });

  it('ignores statuses beyond the spec targets', () => {
    const input = build([
      { name: 'dev', statuses: [healthy('1.0.1')] },
      { name: 'prod', statuses: [healthy('1.0.0'), unknown()], specTargets: 1 },
    ]);
    expect(decisionFor(input, 'prod')).toMatchObject({ outcome: 'Promote', revision: '1.0.1' });
  });

  it('treats environments with a duplicated name as Unknown', () => {
    const input = build([
      { name: 'dev', statuses: [healthy('1.0.1')] },
      { name: 'prod', statuses: [healthy('1.0.0')] },
      { name: 'prod', statuses: [healthy('1.0.0')] },
    ]);
    const decisions = evaluate(input).decisions;
    expect(decisions.map((d) => d.reason)).toEqual(['Ready', 'TargetUnknown', 'UpstreamUnknown']);
    expect(promotions(evaluate(input))).toEqual([]);
  });

  it('gives a single-environment pipeline only its Source decision', () => {
    const decisions = evaluate(build([{ name: 'dev', statuses: [healthy('1.0.0')] }])).decisions;
    expect(decisions).toHaveLength(1);
    expect(decisions[0]?.outcome).toBe('Source');
  });
});

describe('evaluate: messages', () => {
  it('never echoes target messages, only locations and reasons', () => {
    const leaky = {
      ...unhealthy('1.0.0', 'UpgradeFailed'),
      message: 'Authorization: Bearer s3cr3t-token',
    };
    const input = build([
      { name: 'dev', statuses: [leaky] },
      { name: 'prod', statuses: [{ ...unknown(), message: 'password=hunter2' }] },
    ]);
    const text = evaluate(input)
      .decisions.map((d) => d.message)
      .join('\n');
    expect(text).not.toMatch(/s3cr3t|hunter2/);
    expect(text).toContain('dev is not ready: apps (UpgradeFailed)');
  });

  it('strips control characters and caps long revisions', () => {
    const input = devProd(`1.0.0\n${'x'.repeat(500)}`, '0.9.0');
    const d = decisionFor(input, 'prod');
    expect(d.outcome).toBe('Promote');
    expect(d.message).not.toContain('\n');
    expect(d.message.length).toBeLessThan(300);
    // The decision itself carries the exact revision.
    expect(d.revision).toBe(`1.0.0\n${'x'.repeat(500)}`);
  });

  it('lists at most three targets', () => {
    const input = build([{ name: 'dev', statuses: [1, 2, 3, 4, 5].map(() => unhealthy('1.0.0')) }]);
    expect(decisionFor(input, 'dev').message).toMatch(/and 2 more$/);
  });

  it('gives every decision a PascalCase reason and a non-empty message', () => {
    const input = build([
      { name: 'dev', statuses: [healthy('2.0.0')] },
      { name: 'staging', statuses: [healthy('1.0.0')] },
      { name: 'prod', statuses: [unknown()] },
    ]);
    for (const d of evaluate(input).decisions) {
      expect(d.reason).toMatch(/^[A-Z][A-Za-z]+$/);
      expect(d.message.length).toBeGreaterThan(0);
    }
  });
});

describe('promotions and nextWakeup', () => {
  it('promotions returns only Promote decisions, in spec order', () => {
    const input = build([
      { name: 'dev', statuses: [healthy('2.0.0')] },
      { name: 'qa', statuses: [healthy('1.0.0')] },
      { name: 'staging', statuses: [healthy('1.0.0')] },
      { name: 'prod', statuses: [healthy('0.9.0')] },
    ]);
    expect(promotions(evaluate(input)).map((d) => [d.environment, d.revision])).toEqual([
      ['qa', '2.0.0'],
      ['prod', '1.0.0'],
    ]);
  });

  it('nextWakeup is the earliest retryAt, from backoffs and live claims alike', () => {
    const input = build(
      [
        { name: 'dev', statuses: [healthy('2.0.0')] },
        { name: 'staging', statuses: [healthy('1.0.0')] },
        { name: 'prod', statuses: [healthy('0.9.0')] },
      ],
      {
        records: {
          staging: record({ revision: '2.0.0', phase: 'Failed', attempt: 2 }),
          prod: record({ revision: '1.0.0', phase: 'Claimed', attempt: 1 }),
        },
      },
    );
    const evaluation = evaluate(input);
    expect(evaluation.decisions.map((d) => d.retryAt)).toEqual([
      undefined,
      NOW + 2 * MINUTE,
      NOW + 15 * MINUTE,
    ]);
    expect(nextWakeup(evaluation)).toBe(NOW + 2 * MINUTE);
  });

  it('nextWakeup is undefined when nothing waits on time', () => {
    expect(nextWakeup(evaluate(devProd('1.0.1', '1.0.0')))).toBeUndefined();
  });

  it('nextWakeup skips a non-finite retryAt', () => {
    expect(
      nextWakeup({
        decisions: [
          {
            environment: 'a',
            outcome: 'Waiting',
            reason: 'RetryBackoff',
            message: 'm',
            retryAt: Number.NaN,
          },
          {
            environment: 'b',
            outcome: 'Waiting',
            reason: 'RetryBackoff',
            message: 'm',
            retryAt: 5,
          },
        ],
      }),
    ).toBe(5);
  });
});
