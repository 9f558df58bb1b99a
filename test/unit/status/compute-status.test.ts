import { describe, expect, it } from 'vitest';
import type { Evaluation, TargetStatus } from '../../../src/evaluate/decisions.js';
import type { PipelineStatus, PromotionRecord } from '../../../src/pipeline/pipeline-resource.js';
import { computeStatus, statusEqual } from '../../../src/status/compute-status.js';
import { samplePipeline, T0 } from '../../support/pipeline-fixtures.js';

const healthy = (cluster: string, revision: string): TargetStatus => ({
  location: { cluster, namespace: 'podinfo' },
  health: 'Healthy',
  revision,
  reason: 'Ready',
  message: 'Helm upgrade succeeded',
});

const targets: Record<string, TargetStatus[]> = {
  dev: [healthy('mgmt', '1.2.0'), healthy('dev-eu', '1.2.0')],
  staging: [
    {
      location: { cluster: 'staging', namespace: 'podinfo' },
      health: 'Unhealthy',
      revision: '1.1.0',
      reason: 'Reconciling',
      message: 'upgrade in progress',
    },
  ],
  prod: [
    {
      location: { cluster: 'prod', namespace: 'podinfo' },
      health: 'Unknown',
      reason: 'Forbidden',
      message: 'the gateway may not read helmreleases in podinfo',
    },
  ],
};

const evaluation: Evaluation = {
  decisions: [
    {
      environment: 'dev',
      outcome: 'Source',
      revision: '1.2.0',
      reason: 'Ready',
      message: 'dev runs 1.2.0',
    },
    {
      environment: 'staging',
      outcome: 'AlreadyPromoted',
      revision: '1.2.0',
      reason: 'PromotionInProgress',
      message: 'promotion of 1.2.0 is in progress',
    },
    {
      environment: 'prod',
      outcome: 'WaitingApproval',
      revision: '1.1.0',
      reason: 'ApprovalRequired',
      message: 'waiting for an approval of 1.1.0',
    },
  ],
};

const stagingPromotion: PromotionRecord = {
  revision: '1.2.0',
  attempt: 1,
  lastAttemptedTime: '2026-03-04T05:00:00Z',
  phase: 'Claimed',
  succeeded: false,
  claimedBy: 'gw-b',
};

const appRef = { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'podinfo' };

describe('computeStatus', () => {
  it('produces the weave-compatible status for a three-environment pipeline', () => {
    const pipeline = samplePipeline({
      conditions: [
        {
          type: 'Ready',
          status: 'False',
          reason: 'TargetsUnknown',
          message: 'old',
          lastTransitionTime: '2026-03-01T00:00:00Z',
          observedGeneration: 2,
        },
      ],
      environments: { staging: { promotion: stagingPromotion } },
    });

    const status = computeStatus({ pipeline, targets, evaluation, now: T0 });

    const expected: PipelineStatus = {
      observedGeneration: 3,
      conditions: [
        {
          type: 'Ready',
          status: 'False',
          observedGeneration: 3,
          lastTransitionTime: '2026-03-01T00:00:00Z',
          reason: 'TargetsNotReady',
          message: '1 of 4 targets not ready, 1 unknown',
        },
        {
          type: 'PromotionPending',
          status: 'True',
          observedGeneration: 3,
          lastTransitionTime: '2026-03-04T05:06:07Z',
          reason: 'PromotionInProgress',
          message: 'staging: promotion of 1.2.0 is in progress',
        },
      ],
      environments: {
        dev: {
          targets: [
            { clusterAppRef: appRef, ready: true, revision: '1.2.0' },
            {
              clusterAppRef: { ...appRef, clusterRef: { kind: 'GitopsCluster', name: 'dev-eu' } },
              ready: true,
              revision: '1.2.0',
            },
          ],
        },
        staging: {
          targets: [
            {
              clusterAppRef: {
                ...appRef,
                clusterRef: { kind: 'GitopsCluster', name: 'staging', namespace: 'clusters' },
              },
              ready: false,
              revision: '1.1.0',
              error: 'Reconciling: upgrade in progress',
            },
          ],
          promotion: stagingPromotion,
        },
        prod: {
          targets: [
            {
              clusterAppRef: { ...appRef, clusterRef: { kind: 'GitopsCluster', name: 'prod' } },
              ready: false,
              error: 'Forbidden: the gateway may not read helmreleases in podinfo',
            },
          ],
          waitingApproval: { revision: '1.1.0' },
        },
      },
    };
    expect(status).toStrictEqual(expected);
  });

  it('reports Ready=True and no pending promotion when all is settled', () => {
    const pipeline = samplePipeline();
    const all: Record<string, TargetStatus[]> = {
      dev: [healthy('a', '1'), healthy('b', '1')],
      staging: [healthy('c', '1')],
      prod: [healthy('d', '1')],
    };
    const settled: Evaluation = {
      decisions: [
        { environment: 'dev', outcome: 'Source', revision: '1', reason: 'Ready', message: '' },
        {
          environment: 'staging',
          outcome: 'UpToDate',
          revision: '1',
          reason: 'Deployed',
          message: '',
        },
        {
          environment: 'prod',
          outcome: 'AlreadyPromoted',
          revision: '1',
          reason: 'PromotionSucceeded',
          message: '',
        },
      ],
    };
    const status = computeStatus({ pipeline, targets: all, evaluation: settled, now: T0 });
    expect(status.conditions?.map((c) => [c.type, c.status, c.reason, c.message])).toStrictEqual([
      ['Ready', 'True', 'AllTargetsReady', 'All 4 targets are ready'],
      ['PromotionPending', 'False', 'NoPromotionPending', 'No promotion is pending'],
    ]);
  });

  it('keeps a promotion pending while its pull request waits to be merged', () => {
    const pipeline = samplePipeline();
    const all: Record<string, TargetStatus[]> = {
      dev: [healthy('a', '2'), healthy('b', '2')],
      staging: [healthy('c', '2')],
      prod: [healthy('d', '1')],
    };
    const message = 'prod waits for pull request #3 to merge (opened at 2026-03-04T05:00:00.000Z)';
    const open: Evaluation = {
      decisions: [
        { environment: 'dev', outcome: 'Source', revision: '2', reason: 'Ready', message: '' },
        {
          environment: 'staging',
          outcome: 'UpToDate',
          revision: '2',
          reason: 'Deployed',
          message: '',
        },
        {
          environment: 'prod',
          outcome: 'Waiting',
          revision: '2',
          reason: 'PullRequestOpen',
          message,
        },
      ],
    };
    const status = computeStatus({ pipeline, targets: all, evaluation: open, now: T0 });
    expect(status.conditions?.[1]).toMatchObject({
      type: 'PromotionPending',
      status: 'True',
      reason: 'PullRequestOpen',
      message: `prod: ${message}`,
    });
  });

  it('counts targets never read as unknown', () => {
    const pipeline = samplePipeline();
    const status = computeStatus({
      pipeline,
      targets: { dev: [healthy('a', '1'), healthy('b', '1')], staging: [healthy('c', '1')] },
      evaluation: { decisions: [] },
      now: T0,
    });
    expect(status.conditions?.[0]).toMatchObject({
      status: 'False',
      reason: 'TargetsUnknown',
      message: '1 of 4 targets unknown',
    });
    expect(status.environments?.prod?.targets?.[0]).toMatchObject({
      ready: false,
      error: 'NotVerified: the target has not been read yet',
    });
  });

  it('keeps lastTransitionTime while a condition status holds and moves it when it flips', () => {
    const first = computeStatus({ pipeline: samplePipeline(), targets, evaluation, now: T0 });
    const later = T0 + 3_600_000;
    const again = computeStatus({
      pipeline: samplePipeline(first),
      targets,
      evaluation,
      now: later,
    });
    expect(again.conditions).toStrictEqual(first.conditions);

    const healed = {
      ...targets,
      staging: [healthy('staging', '1.2.0')],
      prod: [healthy('prod', '1.1.0')],
    };
    const flipped = computeStatus({
      pipeline: samplePipeline(first),
      targets: healed,
      evaluation,
      now: later,
    });
    const ready = flipped.conditions?.find((c) => c.type === 'Ready');
    expect(ready).toMatchObject({ status: 'True', lastTransitionTime: '2026-03-04T06:06:07Z' });
    const pending = flipped.conditions?.find((c) => c.type === 'PromotionPending');
    expect(pending?.lastTransitionTime).toBe('2026-03-04T05:06:07Z');
  });

  it('falls back to the outcome when a decision reason is not a valid condition reason', () => {
    const status = computeStatus({
      pipeline: samplePipeline(),
      targets,
      evaluation: {
        decisions: [
          { environment: 'staging', outcome: 'Waiting', reason: 'not valid!', message: 'm' },
        ],
      },
      now: T0,
    });
    expect(status.conditions?.[1]?.reason).toBe('Waiting');
  });
});

describe('statusEqual', () => {
  const a: PipelineStatus = {
    observedGeneration: 1,
    environments: { dev: { targets: [{ clusterAppRef: appRef, ready: true, revision: '1' }] } },
  };

  it('ignores key order and keys holding undefined', () => {
    const b: PipelineStatus = {
      environments: {
        dev: {
          targets: [
            {
              revision: '1',
              ready: true,
              clusterAppRef: {
                name: 'podinfo',
                kind: 'HelmRelease',
                apiVersion: appRef.apiVersion,
              },
            },
          ],
        },
      },
      observedGeneration: 1,
      conditions: undefined,
    };
    expect(statusEqual(a, b)).toBe(true);
    expect(statusEqual(undefined, {})).toBe(true);
  });

  it('sees every other difference, including array order and nested values', () => {
    expect(statusEqual(a, { ...a, observedGeneration: 2 })).toBe(false);
    expect(
      statusEqual(a, {
        ...a,
        environments: {
          dev: { targets: [{ clusterAppRef: appRef, ready: false, revision: '1' }] },
        },
      }),
    ).toBe(false);
    expect(statusEqual(a, { ...a, environments: { dev: { targets: [] } } })).toBe(false);
    const t1 = { clusterAppRef: appRef, ready: true };
    const t2 = { clusterAppRef: appRef, ready: false };
    expect(
      statusEqual(
        { environments: { e: { targets: [t1, t2] } } },
        { environments: { e: { targets: [t2, t1] } } },
      ),
    ).toBe(false);
    expect(statusEqual(a, {})).toBe(false);
  });
});
