import { describe, expect, it } from 'vitest';
import { eventId, factsOf } from '../../../src/notify/facts.js';
import type { Pipeline, PipelineStatus } from '../../../src/pipeline/pipeline-resource.js';

function pipeline(status: PipelineStatus): Pipeline {
  return {
    apiVersion: 'pipelines.weave.works/v1alpha1',
    kind: 'Pipeline',
    metadata: { name: 'podinfo', namespace: 'apps', uid: 'u1' },
    spec: {
      appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'podinfo' },
      environments: [
        { name: 'dev', targets: [{ namespace: 'dev' }] },
        {
          name: 'prod',
          targets: [{ namespace: 'prod', clusterRef: { kind: 'GitopsCluster', name: 'eu' } }],
        },
      ],
    },
    status,
  };
}

const prodTarget = (ready: boolean, revision: string, observedTime: string, error?: string) => ({
  clusterAppRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'podinfo' },
  ready,
  revision,
  observedTime,
  ...(error === undefined ? {} : { error }),
});

describe('factsOf', () => {
  it('tells each promotion, wait, authorization and unhealthy target in order', () => {
    const facts = factsOf(
      pipeline({
        environments: {
          prod: {
            history: [
              {
                revision: '1.0.0',
                startedTime: '2026-11-25T10:00:00.000Z',
                attempts: 2,
                failedTime: '2026-11-25T10:00:01.000Z',
                failure: 'WebhookRejected: HTTP 500',
                succeededTime: '2026-11-25T10:00:09.000Z',
              },
              { revision: '1.1.0', startedTime: '2026-11-25T11:00:05.000Z', attempts: 1 },
            ],
            waitingApproval: { revision: '1.1.0', since: '2026-11-25T11:00:00.000Z' },
            approvals: [
              {
                principal: 'alice',
                kind: 'human',
                decision: 'approve',
                revision: '1.1.0',
                time: '2026-11-25T11:00:04Z',
              },
            ],
            targets: [
              prodTarget(false, '1.0.0', '2026-11-25T10:30:00.000Z', 'UpgradeFailed: boom'),
            ],
          },
        },
      }),
    );
    expect(facts.map((f) => `${f.type} ${f.revision}`)).toEqual([
      'PromotionStarted 1.0.0',
      'PromotionFailed 1.0.0',
      'PromotionSucceeded 1.0.0',
      'TargetUnhealthy 1.0.0',
      'WaitingForApproval 1.1.0',
      'AuthorizationRecorded 1.1.0',
      'PromotionStarted 1.1.0',
    ]);
    const failed = facts[1];
    expect(failed).toMatchObject({ reason: 'WebhookRejected', severity: 'error', attempt: 2 });
    expect(facts[3]).toMatchObject({
      targets: [
        { cluster: 'eu', namespace: 'prod', kind: 'HelmRelease', name: 'podinfo', ready: false },
      ],
    });
    expect(facts[3]?.message).toContain('UpgradeFailed: boom');
    expect(facts[5]).toMatchObject({ principal: 'alice', decision: 'approve', reason: 'Approved' });
    // Where to see what the approval would let through, and the digest it may sign.
    expect(facts[4]?.message).toBe(
      'prod waits for an approval of 1.1.0; its preview was not known when the wait began: GET /v1/pipelines/apps/podinfo/environments/prod/preview',
    );
    expect(facts[4]?.preview).toBeUndefined();
  });

  it('tells a promotion that shadow gates would have held, when it started, and not a rollback', () => {
    const wouldHold = [
      { gate: 'window' as const, name: 'freeze', reason: 'InDenyWindow' },
      { gate: 'check' as const, name: 'slo', reason: 'CheckFailed' },
    ];
    const facts = factsOf(
      pipeline({
        environments: {
          prod: {
            history: [
              {
                revision: '1.1.0',
                startedTime: '2026-11-25T11:00:05.000Z',
                attempts: 1,
                wouldHold,
              },
            ],
          },
        },
      }),
    );
    expect(facts.map((f) => f.type)).toEqual(['PromotionStarted', 'ShadowHold']);
    expect(facts[1]).toMatchObject({ revision: '1.1.0', wouldHold, severity: 'info' });
    expect(facts[1]?.message).toBe(
      'Promotion of apps/podinfo prod to 1.1.0 went on; in shadow mode it would have been held by: window freeze (InDenyWindow), check slo (CheckFailed)',
    );
  });

  it('tells each approver whose approval stopped counting as its change moved, once per stale approval', () => {
    const facts = factsOf(
      pipeline({
        environments: {
          prod: {
            waitingApproval: {
              revision: '1.1.0',
              since: '2026-11-25T11:00:00.000Z',
              previewChanged: [
                { principal: 'alice', digest: 'sha256:d1', since: '2026-11-25T11:05:00.000Z' },
                { principal: 'bob', digest: 'sha256:d1', since: '2026-11-25T11:06:00.000Z' },
                // alice approved the moved change, and it moved again: told again.
                { principal: 'alice', digest: 'sha256:d2', since: '2026-11-25T11:09:00.000Z' },
              ],
            },
          },
        },
      }),
    );
    const changed = facts.filter((f) => f.type === 'PreviewChanged');
    expect(changed.map((f) => [f.subject, f.principal, f.time])).toEqual([
      ['alice sha256:d1', 'alice', '2026-11-25T11:05:00.000Z'],
      ['bob sha256:d1', 'bob', '2026-11-25T11:06:00.000Z'],
      ['alice sha256:d2', 'alice', '2026-11-25T11:09:00.000Z'],
    ]);
    expect(changed[0]?.message).toContain("alice's approval of 1.1.0 for prod no longer counts");
  });

  it("tells a wait's recorded preview: its summary, the digest an approval may sign, where to read it", () => {
    const digest = `sha256:${'ab'.repeat(32)}`;
    const summary = 'prod: 1.0.0 -> 1.1.0 by pull request on main (1 file)';
    const facts = factsOf(
      pipeline({
        environments: {
          prod: {
            waitingApproval: {
              revision: '1.1.0',
              since: '2026-11-25T11:00:00.000Z',
              preview: { digest, summary },
            },
          },
        },
      }),
    );
    const waiting = facts.find((f) => f.type === 'WaitingForApproval');
    expect(waiting?.preview).toEqual({ digest, summary });
    expect(waiting?.message).toBe(
      `prod waits for an approval of 1.1.0: ${summary}; an approval may sign ${digest}; the whole change: GET /v1/pipelines/apps/podinfo/environments/prod/preview`,
    );
  });

  it('tells no unhealthy target before the promotion succeeded or at another revision', () => {
    const facts = factsOf(
      pipeline({
        environments: {
          prod: {
            history: [
              {
                revision: '2.0.0',
                startedTime: '2026-11-25T10:00:00.000Z',
                attempts: 1,
                succeededTime: '2026-11-25T10:05:00.000Z',
              },
            ],
            targets: [prodTarget(false, '1.9.0', '2026-11-25T10:06:00.000Z')],
          },
        },
      }),
    );
    expect(facts.map((f) => f.type)).toEqual(['PromotionStarted', 'PromotionSucceeded']);
  });

  it('names the revision a success replaced, none for the environment’s first one', () => {
    const entry = (revision: string, minute: number, succeeded: boolean) => ({
      revision,
      startedTime: `2026-11-25T10:${String(minute).padStart(2, '0')}:00.000Z`,
      attempts: 1,
      ...(succeeded
        ? { succeededTime: `2026-11-25T10:${String(minute).padStart(2, '0')}:30.000Z` }
        : { failedTime: `2026-11-25T10:${String(minute).padStart(2, '0')}:30.000Z` }),
    });
    const history = [
      entry('1.0.0', 1, true),
      entry('1.1.0', 2, false),
      entry('1.2.0', 3, true),
      { ...entry('1.0.0', 4, true), rollback: { from: '1.2.0', by: ['alice'], reason: 'bad' } },
      entry('1.3.0', 5, true),
    ];
    const facts = factsOf(pipeline({ environments: { prod: { history } } }));
    const done = facts.filter((f) => f.type.endsWith('Succeeded'));
    expect(done.map((f) => [f.type, f.revision, f.previousRevision])).toEqual([
      ['PromotionSucceeded', '1.0.0', undefined],
      ['PromotionSucceeded', '1.2.0', '1.0.0'],
      ['RollbackSucceeded', '1.0.0', undefined],
      ['PromotionSucceeded', '1.3.0', '1.0.0'],
    ]);
  });

  it('tells the EventsMissing condition once per episode, Pipeline-wide', () => {
    const condition = {
      type: 'EventsMissing',
      status: 'True' as const,
      reason: 'Unannounced',
      message: 'No Flux event announced',
      lastTransitionTime: '2026-11-25T10:00:00Z',
    };
    const facts = factsOf(pipeline({ conditions: [condition] }));
    expect(facts).toHaveLength(1);
    expect(facts[0]).toMatchObject({ type: 'EventsMissing', environment: '', revision: '' });
    const again = factsOf(
      pipeline({ conditions: [{ ...condition, lastTransitionTime: '2026-11-25T12:00:00Z' }] }),
    );
    expect(eventId('a', again[0]!)).not.toBe(eventId('a', facts[0]!));
  });

  it('gives the same id for the same fact on every look, another per alert', () => {
    const status: PipelineStatus = {
      environments: {
        prod: {
          history: [{ revision: '1.0.0', startedTime: '2026-11-25T10:00:00.000Z', attempts: 1 }],
        },
      },
    };
    const [a] = factsOf(pipeline(status));
    const [b] = factsOf(pipeline(structuredClone(status)));
    expect(eventId('alert-1', a!)).toBe(eventId('alert-1', b!));
    expect(eventId('alert-1', a!)).toMatch(/^evt_[A-Za-z0-9_-]{22}$/);
    expect(eventId('alert-2', a!)).not.toBe(eventId('alert-1', a!));
  });
});
