/**
 * The soak gate's decisions and messages, through the whole evaluator: the upstream's stored
 * healthy-since (`EvaluationInput.soak`) against `now`; Pipelines without a soak unchanged.
 */
import { describe, expect, it } from 'vitest';
import { evaluate, nextWakeup } from '../../../src/evaluate/evaluate.js';
import type { EvaluationInput } from '../../../src/evaluate/decisions.js';
import type { HealthySince, PromotionSpec } from '../../../src/pipeline/pipeline-resource.js';
import {
  MINUTE,
  NOW,
  at,
  build,
  decisionFor,
  expectCase,
  healthy,
  record,
  unhealthy,
  type Case,
} from '../../support/evaluate-builders.js';

const notification = { notification: {} };
const soak = (duration: string, more: Partial<PromotionSpec> = {}): PromotionSpec => ({
  strategy: notification,
  soak: { duration },
  ...more,
});
const since = (revision: string, offsetMs: number): HealthySince => ({
  revision,
  time: at(offsetMs),
});

/** dev healthy at 1.2.3 on two targets, prod at 1.2.2, prod's promotion `promotion`. */
function devProd(
  promotion: PromotionSpec | undefined,
  healthySince: HealthySince | undefined,
  extra: Parameters<typeof build>[1] = {},
): EvaluationInput {
  const input = build(
    [
      { name: 'dev', statuses: [healthy('1.2.3'), healthy('1.2.3')] },
      { name: 'prod', statuses: [healthy('1.2.2')], ...(promotion ? { promotion } : {}) },
    ],
    extra,
  );
  return { ...input, soak: { dev: healthySince } };
}

const cases: Case[] = [
  {
    name: 'no soak: promoted at once, whatever is stored',
    input: devProd(undefined, since('1.2.3', 0)),
    env: 'prod',
    want: { outcome: 'Promote', reason: 'UpstreamReady', retryAt: undefined },
  },
  {
    name: 'healthy for 12m of 30m: waits 18m more, until the soak ends',
    input: devProd(soak('30m'), since('1.2.3', -12 * MINUTE)),
    env: 'prod',
    want: {
      outcome: 'Waiting',
      reason: 'Soaking',
      revision: '1.2.3',
      message: 'dev has run 1.2.3 healthy for 12m of 30m; prod waits 18m more',
      statusMessage: `dev has run 1.2.3 healthy since ${at(-12 * MINUTE)}; prod waits for 30m of it, until 2025-01-01T12:18:00Z`,
      retryAt: NOW + 18 * MINUTE,
    },
  },
  {
    name: 'elapsed rounds down and time left rounds up, to the second',
    input: devProd(soak('30m'), since('1.2.3', -(12 * MINUTE + 34_900))),
    env: 'prod',
    want: {
      reason: 'Soaking',
      message: 'dev has run 1.2.3 healthy for 12m34s of 30m; prod waits 17m26s more',
      retryAt: NOW + 17 * MINUTE + 25_100,
    },
  },
  {
    name: 'healthy for exactly the soak: promoted',
    input: devProd(soak('30m'), since('1.2.3', -30 * MINUTE)),
    env: 'prod',
    want: { outcome: 'Promote', reason: 'UpstreamReady', attempt: 1 },
  },
  {
    name: 'healthy for longer than the soak: promoted',
    input: devProd(soak('1h30m'), since('1.2.3', -91 * MINUTE)),
    env: 'prod',
    want: { outcome: 'Promote' },
  },
  {
    name: 'one millisecond short: still soaking, 1s left',
    input: devProd(soak('30m'), since('1.2.3', -30 * MINUTE + 1)),
    env: 'prod',
    want: {
      reason: 'Soaking',
      message: 'dev has run 1.2.3 healthy for 29m59s of 30m; prod waits 1s more',
      retryAt: NOW + 1,
    },
  },
  {
    name: 'healthy since at another revision: the soak of this one starts now',
    input: devProd(soak('30m'), since('1.2.2', -60 * MINUTE)),
    env: 'prod',
    want: {
      reason: 'Soaking',
      message: 'dev has run 1.2.3 healthy for 0s of 30m; prod waits 30m more',
      statusMessage: 'dev is healthy at 1.2.3; prod waits for it to run so for 30m',
      retryAt: NOW + 30 * MINUTE,
    },
  },
  {
    name: 'nothing known of since when: the soak starts now',
    input: devProd(soak('45s'), undefined),
    env: 'prod',
    want: { reason: 'Soaking', retryAt: NOW + 45_000 },
  },
  {
    name: 'a time that is no time counts as not known',
    input: devProd(soak('45s'), { revision: '1.2.3', time: 'yesterday' }),
    env: 'prod',
    want: { reason: 'Soaking', retryAt: NOW + 45_000 },
  },
  {
    name: 'a since ahead of our clock (another replica clock) never shortens the soak',
    input: devProd(soak('10m'), since('1.2.3', 2 * MINUTE)),
    env: 'prod',
    want: {
      reason: 'Soaking',
      message: 'dev has run 1.2.3 healthy for 0s of 10m; prod waits 12m more',
      retryAt: NOW + 12 * MINUTE,
    },
  },
  {
    name: 'a soak of 0s is none',
    input: devProd(soak('0s'), undefined),
    env: 'prod',
    want: { outcome: 'Promote', reason: 'UpstreamReady' },
  },
  {
    name: 'a soak longer than a year holds, and says why',
    input: devProd(soak('8761h'), since('1.2.3', -100 * MINUTE)),
    env: 'prod',
    want: {
      outcome: 'Waiting',
      reason: 'SoakInvalid',
      retryAt: undefined,
      message:
        "prod's soak of 8761h is longer than the 8760h the gateway counts; prod waits until it is changed",
    },
  },
  {
    name: 'a soak comes before the approval gate',
    input: devProd(soak('30m', { manual: true }), since('1.2.3', -MINUTE)),
    env: 'prod',
    want: { outcome: 'Waiting', reason: 'Soaking' },
  },
  {
    name: 'after the soak, the approval gate asks',
    input: devProd(soak('30m', { manual: true }), since('1.2.3', -30 * MINUTE)),
    env: 'prod',
    want: { outcome: 'WaitingApproval', reason: 'ApprovalRequired' },
  },
  {
    name: 'a promotion already recorded is not held by the soak',
    input: devProd(soak('30m'), since('1.2.3', 0), {
      records: { prod: record({ revision: '1.2.3', succeeded: true, phase: 'Succeeded' }) },
    }),
    env: 'prod',
    want: { outcome: 'AlreadyPromoted', reason: 'PromotionSucceeded' },
  },
  {
    name: 'an upstream not ready waits for that, not for the soak',
    input: {
      ...build([
        { name: 'dev', statuses: [healthy('1.2.3'), unhealthy('1.2.3')] },
        { name: 'prod', statuses: [healthy('1.2.2')], promotion: soak('30m') },
      ]),
      soak: { dev: since('1.2.3', -60 * MINUTE) },
    },
    env: 'prod',
    want: { outcome: 'Waiting', reason: 'UpstreamNotReady' },
  },
];

describe('the soak gate', () => {
  it.each(cases)('$name', (c) => {
    expectCase(c);
  });

  it('asks the reconciler to look again when the soak ends', () => {
    const input = devProd(soak('30m'), since('1.2.3', -12 * MINUTE));
    expect(nextWakeup(evaluate(input))).toBe(NOW + 18 * MINUTE);
  });

  it('takes the pipeline-wide soak where an environment has none, and its own over it', () => {
    const input: EvaluationInput = {
      ...build(
        [
          { name: 'dev', statuses: [healthy('2.0.0')] },
          { name: 'staging', statuses: [healthy('1.0.0')] },
          { name: 'prod', statuses: [healthy('1.0.0')], promotion: soak('0s') },
        ],
        { promotion: soak('1h') },
      ),
      soak: { dev: since('2.0.0', -20 * MINUTE) },
    };
    expect(decisionFor(input, 'staging')).toMatchObject({
      reason: 'Soaking',
      message: 'dev has run 2.0.0 healthy for 20m of 1h; staging waits 40m more',
    });
    // prod's own 0s turns the pipeline's soak off (staging is ready at 1.0.0, prod runs it).
    expect(decisionFor(input, 'prod')).toMatchObject({ outcome: 'UpToDate' });
  });

  it('waits, in each environment, on the healthy-since of the one before it', () => {
    const input: EvaluationInput = {
      ...build([
        { name: 'dev', statuses: [healthy('3.0.0')] },
        { name: 'staging', statuses: [healthy('2.0.0')], promotion: soak('10m') },
        { name: 'prod', statuses: [healthy('1.0.0')], promotion: soak('1h') },
      ]),
      soak: { dev: since('3.0.0', -11 * MINUTE), staging: since('2.0.0', -59 * MINUTE) },
    };
    expect(decisionFor(input, 'staging')).toMatchObject({ outcome: 'Promote', revision: '3.0.0' });
    expect(decisionFor(input, 'prod')).toMatchObject({
      outcome: 'Waiting',
      reason: 'Soaking',
      revision: '2.0.0',
      message: 'staging has run 2.0.0 healthy for 59m of 1h; prod waits 1m more',
    });
  });

  it('leaves a Pipeline without a soak exactly as it was, soak input or not', () => {
    const plain = build([
      { name: 'dev', statuses: [healthy('1.2.3')] },
      { name: 'prod', statuses: [healthy('1.2.2')] },
    ]);
    const withInput = { ...plain, soak: { dev: since('1.2.3', 0) } };
    expect(evaluate(withInput)).toEqual(evaluate(plain));
  });
});
