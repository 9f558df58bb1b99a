/**
 * A drift as the view writes it: the environment's `drift` record (since kept while the same
 * drift is found again, so a fleet at rest writes nothing), the Drifted condition naming both
 * revisions, False (NoDrift) once it is over, and one Drifted notification fact per episode.
 */
import { describe, expect, it } from 'vitest';
import type { Evaluation, TargetStatus } from '../../../src/evaluate/decisions.js';
import type { ChangeVerdict } from '../../../src/kube/status-writer.js';
import { factsOf } from '../../../src/notify/facts.js';
import type { Pipeline, PipelineStatus } from '../../../src/pipeline/pipeline-resource.js';
import { evaluatePipeline } from '../../../src/evaluation/evaluation-input.js';
import { viewChange, type ViewVerdict } from '../../../src/status/view-change.js';
import { samplePipeline, T0 } from '../../support/pipeline-fixtures.js';

const POLICY = {
  maxAttempts: 3,
  backoffBaseMs: 1000,
  backoffMaxMs: 10_000,
  claimTimeoutMs: 60_000,
};
const healthy = (revision: string): TargetStatus => ({
  location: { cluster: 'c', namespace: 'podinfo' },
  health: 'Healthy',
  revision,
  reason: 'Ready',
  message: '',
});

/** staging's 1.1.0 promotion succeeded 20 minutes ago, and staging was verified running it. */
function promotedAndRan(): Pipeline {
  const pipeline = samplePipeline({
    environments: {
      staging: {
        promotion: {
          revision: '1.1.0',
          lastAttemptedTime: new Date(T0 - 1_200_000).toISOString(),
          succeeded: true,
          phase: 'Succeeded',
          attempt: 1,
        },
        verified: [{ revision: '1.1.0', time: new Date(T0 - 1_100_000).toISOString() }],
      },
    },
  });
  return { ...pipeline, metadata: { ...pipeline.metadata, resourceVersion: '1' } };
}

function reevaluate(pipeline: Pipeline, targets: Record<string, TargetStatus[]>): Evaluation {
  return evaluatePipeline(pipeline, targets, { policy: POLICY, floors: {} }, T0);
}

function viewOf(pipeline: Pipeline, staging: string, now: number): ChangeVerdict<ViewVerdict> {
  const targets = {
    dev: [healthy('1.1.0'), healthy('1.1.0')],
    staging: [healthy(staging)],
    prod: [healthy('1.0.0')],
  };
  const observedAt = { dev: [now, now], staging: [now], prod: [now] };
  const evaluation = reevaluate(pipeline, targets);
  return viewChange({ pipeline, targets, observedAt, evaluation }, { now, reevaluate })(pipeline);
}

function written(verdict: ChangeVerdict<ViewVerdict>): PipelineStatus {
  if (!('write' in verdict)) throw new Error(`kept: ${JSON.stringify(verdict.keep)}`);
  return verdict.write;
}

const withStatus = (status: PipelineStatus): Pipeline => ({ ...promotedAndRan(), status });

describe('a drift in the view', () => {
  it('records both revisions, raises Drifted, and writes nothing when found again', () => {
    const first = written(viewOf(promotedAndRan(), '1.0.0', T0));
    expect(first.environments?.staging?.drift).toEqual({
      promoted: '1.1.0',
      running: ['1.0.0'],
      arrived: true,
      since: new Date(T0).toISOString(),
    });
    const condition = first.conditions?.find((c) => c.type === 'Drifted');
    expect(condition).toMatchObject({ status: 'True', reason: 'RevisionDrifted' });
    expect(condition?.message).toBe(
      'staging runs 1.0.0, not 1.1.0 promoted there (it ran it, then left it)',
    );
    // A later look that finds the same drift writes the status as stored.
    const again = written(viewOf(withStatus(first), '1.0.0', T0 + 60_000));
    expect(again).toEqual(first);
  });

  it('turns Drifted False once the environment runs what was promoted, and drops the record', () => {
    const drifted = written(viewOf(promotedAndRan(), '1.0.0', T0));
    const back = written(viewOf(withStatus(drifted), '1.1.0', T0 + 60_000));
    expect(back.environments?.staging?.drift).toBeUndefined();
    expect(back.conditions?.find((c) => c.type === 'Drifted')).toMatchObject({
      status: 'False',
      reason: 'NoDrift',
      lastTransitionTime: new Date(T0 + 60_000).toISOString().replace(/\.\d+Z$/, 'Z'),
    });
  });

  it('is told once per episode, about the promoted revision', () => {
    const drifted = written(viewOf(promotedAndRan(), '1.0.0', T0));
    const facts = factsOf(withStatus(drifted)).filter((f) => f.type === 'Drifted');
    expect(facts).toHaveLength(1);
    expect(facts[0]).toMatchObject({
      environment: 'staging',
      revision: '1.1.0',
      severity: 'error',
      at: T0,
      message:
        'flux-system/podinfo staging runs 1.0.0, not 1.1.0 that was promoted there (it ran it, then left it)',
    });
  });

  it('writes no drift while the promoted revision may still be rolling out', () => {
    const fresh = samplePipeline({
      environments: {
        staging: {
          promotion: {
            revision: '1.1.0',
            lastAttemptedTime: new Date(T0 - 60_000).toISOString(),
            succeeded: true,
            phase: 'Succeeded',
          },
        },
      },
    });
    const status = written(
      viewOf({ ...fresh, metadata: { ...fresh.metadata, resourceVersion: '1' } }, '1.0.0', T0),
    );
    expect(status.environments?.staging?.drift).toBeUndefined();
    expect(status.conditions?.some((c) => c.type === 'Drifted')).toBe(false);
  });
});
