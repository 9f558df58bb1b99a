/**
 * What-if over a fleet of 1,000 Pipelines (3 environments, 4 targets each): a policy with a new
 * fleet deny window for prod (a weekend freeze, asked on a Saturday) and a soak for staging on half of them answers with exactly the
 * environments it holds. The time it took is printed (`what-if 1000 Pipelines: N ms`), not
 * asserted: the machine is shared.
 */
import { describe, expect, it } from 'vitest';
import type { TargetStatus } from '../../../src/evaluate/decisions.js';
import { PipelineEvaluator } from '../../../src/evaluation/pipeline-evaluator.js';
import { whatIf, type WhatIfSubject } from '../../../src/evaluation/what-if.js';
import { compileWhatIfPolicy } from '../../../src/evaluation/what-if-policy.js';
import type { Pipeline } from '../../../src/pipeline/pipeline-resource.js';
import { samplePipeline } from '../../support/pipeline-fixtures.js';

const FLEET = 1_000;
/** Inside the proposed weekend freeze (Friday 18:00 to Monday 08:00, Berlin). */
const SATURDAY = Date.parse('2026-03-07T12:00:00Z');
const healthy = (revision: string): TargetStatus => ({
  location: { cluster: 'c', namespace: 'podinfo' },
  health: 'Healthy',
  revision,
  reason: 'Ready',
  message: '',
});

/** Even Pipelines: staging due (dev ahead). Odd ones: prod due (staging ahead), no gate. */
function subjectOf(i: number): WhatIfSubject {
  const base = samplePipeline();
  const prod = base.spec.environments[2];
  if (prod !== undefined) prod.promotion = { strategy: { notification: {} } };
  const pipeline: Pipeline = {
    ...base,
    metadata: {
      ...base.metadata,
      name: `app-${String(i)}`,
      labels: { team: i % 2 === 0 ? 'a' : 'b' },
    },
  };
  const staging = i % 2 === 0 ? '1.0.0' : '2.0.0';
  return {
    pipeline,
    targets: {
      dev: [healthy('2.0.0'), healthy('2.0.0')],
      staging: [healthy(staging)],
      prod: [healthy('1.0.0')],
    },
  };
}

describe('what-if over 1,000 Pipelines', () => {
  it('answers with the environments a new deny window and a soak change hold', () => {
    const subjects = Array.from({ length: FLEET }, (_, i) => subjectOf(i));
    const compiled = compileWhatIfPolicy({
      windows: [
        {
          ...{ name: 'weekend', type: 'Deny', cron: '0 18 * * 5', timeZone: 'Europe/Berlin' },
          ...{ duration: 'P2DT14H', environments: ['prod'] },
        },
      ],
      pipelines: [
        { selector: 'team=a', environments: ['staging'], promotion: { soak: { duration: '1h' } } },
      ],
    });
    if (!compiled.ok) throw new Error(compiled.problems.join('; '));
    const evaluator = new PipelineEvaluator(
      {
        policy: {
          maxAttempts: 3,
          backoffBaseMs: 1000,
          backoffMaxMs: 60_000,
          claimTimeoutMs: 60_000,
        },
        floors: {},
      },
      () => SATURDAY,
    );
    const started = performance.now();
    const answer = whatIf(subjects, evaluator, compiled.policy, SATURDAY);
    const ms = performance.now() - started;
    console.log(`what-if ${String(FLEET)} Pipelines: ${ms.toFixed(0)} ms`);
    expect(answer.pipelines).toHaveLength(FLEET);
    // Team a: staging soaks (was Promote). Team b: prod frozen (was Promote).
    expect(answer.changed).toBe(FLEET);
    const reasons = new Set(
      answer.pipelines.flatMap((p) =>
        p.environments.filter((e) => e.changed).map((e) => e.proposed.reason),
      ),
    );
    expect([...reasons].sort()).toEqual(['InDenyWindow', 'Soaking']);
  });
});
