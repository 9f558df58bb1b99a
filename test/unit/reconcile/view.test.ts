import { describe, expect, it } from 'vitest';
import type { EnvironmentDecision, TargetStatus } from '../../../src/evaluate/decisions.js';
import { pipelineId } from '../../../src/pipeline/id.js';
import { viewOf, type KeptView } from '../../../src/reconcile/view.js';

function healthy(cluster: string, revision: string): TargetStatus {
  return {
    location: { cluster, namespace: 'app' },
    health: 'Healthy',
    reason: 'Ready',
    message: 'ok',
    revision,
  };
}

const decision = (environment: string): EnvironmentDecision => ({
  environment,
  outcome: 'UpToDate',
  reason: 'UpToDate',
  message: `${environment} is up to date`,
});

describe('viewOf', () => {
  it('serves the statuses per environment in spec order, every environment listed', () => {
    const statuses = new Map([
      ['a', healthy('a', '2')],
      ['b', healthy('b', '1')],
      ['c', healthy('c', '1')],
    ]);
    const kept: KeptView<{ environment: string; index: number; id: string }> = {
      environments: ['dev', 'empty', 'prod'],
      targets: [
        { environment: 'dev', index: 0, id: 'a' },
        { environment: 'prod', index: 0, id: 'b' },
        { environment: 'prod', index: 1, id: 'c' },
        { environment: 'prod', index: 2, id: 'not read yet' },
      ],
      decisions: [decision('dev'), decision('empty'), decision('prod')],
      evaluatedAt: Date.parse('2026-11-26T10:00:00.250Z'),
    };
    const view = viewOf(pipelineId({ namespace: 'team', name: 'app' }), kept, (t) =>
      statuses.get(t.id),
    );
    expect(view).toStrictEqual({
      namespace: 'team',
      name: 'app',
      targets: {
        dev: [healthy('a', '2')],
        empty: [],
        prod: [healthy('b', '1'), healthy('c', '1')],
      },
      decisions: kept.decisions,
      evaluatedAt: '2026-11-26T10:00:00Z',
    });
    expect(Object.keys(view.targets)).toEqual(['dev', 'empty', 'prod']);
    // The JSON the API sends keeps the field order it always had.
    expect(Object.keys(view)).toEqual(['namespace', 'name', 'targets', 'decisions', 'evaluatedAt']);
  });

  it('carries the policy views when the evaluation had some', () => {
    const policy = { prod: { gates: [] } } as unknown as KeptView['policy'];
    const view = viewOf(
      pipelineId({ namespace: 'team', name: 'app' }),
      {
        environments: ['prod'],
        targets: [],
        decisions: [decision('prod')],
        policy,
        evaluatedAt: 0,
      },
      () => undefined,
    );
    expect(Object.keys(view)).toEqual([
      'namespace',
      'name',
      'targets',
      'decisions',
      'policy',
      'evaluatedAt',
    ]);
    expect(view.policy).toBe(policy);
  });
});
