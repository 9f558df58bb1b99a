/**
 * A release train's notification events: TrainWaiting is owed by a release waiting for its
 * members' gates (at the time the wait began), TrainPromoted and TrainFailed by one whose
 * promotion ended (at the time it ended); each is recorded once, by the first write that finds it
 * owed and missing while an alert wants it (so an alert learnt of a little late still gets it),
 * never again or changed; TrainFailed names the failed members and why and the members stopped;
 * the train's events are a stream of their own beside a Pipeline's of the same name; each format
 * tells the train.
 */
import { describe, expect, it } from 'vitest';
import { planAlert } from '../../../src/notify/alert-progress.js';
import type { PromotionAlert } from '../../../src/notify/alert-resource.js';
import type { NotificationFact } from '../../../src/notify/facts.js';
import { eventData, headline } from '../../../src/notify/formats/event-names.js';
import { cloudEvent } from '../../../src/notify/formats/cloudevents.js';
import { cdEventOf } from '../../../src/notify/formats/cdevents-vocabulary.js';
import { eventFacts } from '../../../src/notify/formats/people.js';
import {
  releaseOutcome,
  trainFacts,
  withTrainEvents,
  type TrainOutboxPolicy,
} from '../../../src/notify/train-events.js';
import type { EnvironmentStatus } from '../../../src/pipeline/pipeline-resource.js';
import type {
  PromotionTrain,
  TrainRelease,
  TrainStatus,
} from '../../../src/trains/train-resource.js';

const T = Date.parse('2026-12-07T10:00:00Z');
const DIGEST = `sha256:${'a'.repeat(64)}`;
const MEMBERS = { api: '2.4.0', web: '5.1.0', worker: '1.8.2' };

const TRAIN: PromotionTrain = {
  apiVersion: 'pipelines.promotion-gateway.dev/v1alpha1',
  kind: 'PromotionTrain',
  metadata: { namespace: 'shop', name: 'release' },
  spec: { members: [{ name: 'api' }, { name: 'web', dependsOn: ['api'] }, { name: 'worker' }] },
};

function release(state: TrainRelease['state'], waitingFor: string[] = []): TrainRelease {
  const ended = state === 'Succeeded' || state === 'Failed';
  return {
    digest: DIGEST,
    members: MEMBERS,
    state,
    startedAt: new Date(T - 60_000).toISOString(),
    ...(ended ? { finishedAt: new Date(T).toISOString() } : {}),
    waitingFor,
    reason: state,
    message: state,
  };
}

function status(r: TrainRelease, outbox?: TrainStatus['outbox']): TrainStatus {
  return {
    members: Object.keys(MEMBERS),
    environments: [{ name: 'prod', release: r }],
    ...(outbox === undefined ? {} : { outbox }),
  };
}

function policy(wanted = true): TrainOutboxPolicy {
  return {
    horizonMs: 24 * 3_600_000,
    wants: () => wanted,
    outcomeOf: () => ({
      failed: [{ member: 'web', revision: '5.1.0', reason: 'WebhookRejected: HTTP 503' }],
      stopped: ['worker'],
    }),
  };
}

describe('withTrainEvents', () => {
  it('records TrainPromoted, at the time its promotion ended, for a release that promoted', () => {
    const next = withTrainEvents(TRAIN, status(release('Succeeded')), T, policy());
    expect(next.outbox).toEqual([
      expect.objectContaining({
        type: 'TrainPromoted',
        environment: 'prod',
        revision: DIGEST,
        time: new Date(T).toISOString(),
        severity: 'info',
        train: { digest: DIGEST, members: MEMBERS },
      }),
    ]);
  });

  it('records TrainFailed with the failed members and why, and those stopped', () => {
    const next = withTrainEvents(TRAIN, status(release('Failed', ['web'])), T, policy());
    const [event] = next.outbox ?? [];
    expect(event).toMatchObject({
      type: 'TrainFailed',
      reason: 'MemberFailed',
      severity: 'error',
      train: {
        failed: [{ member: 'web', revision: '5.1.0', reason: 'WebhookRejected: HTTP 503' }],
        stopped: ['worker'],
      },
    });
    expect(event?.message).toContain('web 5.1.0: WebhookRejected: HTTP 503');
    expect(event?.message).toContain('stopped: worker');
  });

  it('records nothing for a release still promoting, or one that ended without promoting', () => {
    const { finishedAt: _none, ...settled } = release('Succeeded');
    for (const next of [status(release('Promoting')), status(settled)])
      expect(withTrainEvents(TRAIN, next, T, policy()).outbox).toBeUndefined();
  });

  it('records nothing no alert wants', () => {
    const next = withTrainEvents(TRAIN, status(release('Succeeded')), T, policy(false));
    expect(next.outbox).toBeUndefined();
  });

  it('keeps what it recorded, unchanged, through later writes, and lets it go past the horizon', () => {
    const first = withTrainEvents(TRAIN, status(release('Succeeded')), T, policy());
    const again = withTrainEvents(TRAIN, first, T + 1_000, policy());
    expect(again.outbox).toEqual(first.outbox);
    const late = T + 26 * 3_600_000;
    expect(withTrainEvents(TRAIN, first, late, policy()).outbox).toBeUndefined();
  });

  it('catches up an event owed before an alert was known, with its own time, within the horizon', () => {
    const unwanted = withTrainEvents(TRAIN, status(release('Failed', ['web'])), T, policy(false));
    expect(unwanted.outbox).toBeUndefined();
    const caught = withTrainEvents(TRAIN, unwanted, T + 4_000, policy());
    expect(caught.outbox).toEqual([
      expect.objectContaining({ type: 'TrainFailed', time: new Date(T).toISOString() }),
    ]);
    expect(withTrainEvents(TRAIN, caught, T + 9_000, policy()).outbox).toEqual(caught.outbox);
    const pastHorizon = T + 24 * 3_600_000 + 1;
    expect(withTrainEvents(TRAIN, unwanted, pastHorizon, policy()).outbox).toBeUndefined();
  });
});

describe('TrainWaiting', () => {
  const waiting = (digest = DIGEST, reason = 'MemberGates'): TrainRelease => ({
    ...release('Waiting', ['api', 'web']),
    digest,
    reason,
  });

  it('is recorded, at the time the wait began, for a combination waiting for its gates', () => {
    const next = withTrainEvents(TRAIN, status(waiting()), T, policy());
    expect(next.outbox).toEqual([
      expect.objectContaining({
        type: 'TrainWaiting',
        revision: DIGEST,
        reason: 'MemberGates',
        time: new Date(T - 60_000).toISOString(),
        train: { digest: DIGEST, members: MEMBERS, waitingFor: ['api', 'web'] },
      }),
    ]);
    expect(next.outbox?.[0]?.message).toContain(
      'POST /v1/trains/shop/release/environments/prod/approvals',
    );
  });

  it('is not recorded again while the same wait lasts, nor for a suspended train', () => {
    const first = withTrainEvents(TRAIN, status(waiting()), T, policy());
    const later = { ...status({ ...waiting(), waitingFor: ['web'] }), outbox: first.outbox };
    expect(withTrainEvents(TRAIN, later, T + 5_000, policy()).outbox).toEqual(first.outbox);
    expect(
      withTrainEvents(TRAIN, status(waiting(DIGEST, 'Suspended')), T, policy()).outbox,
    ).toBeUndefined();
  });

  it('is recorded for a new wait of a combination told before', () => {
    const first = withTrainEvents(TRAIN, status(waiting()), T, policy());
    const again = status({ ...waiting(), startedAt: new Date(T).toISOString() }, first.outbox);
    const next = withTrainEvents(TRAIN, again, T, policy());
    expect(next.outbox?.map((e) => e.time)).toEqual([
      new Date(T - 60_000).toISOString(),
      new Date(T).toISOString(),
    ]);
  });

  it('tells a wait, then the end of its promotion, in that order', () => {
    const wait = withTrainEvents(TRAIN, status(waiting()), T - 60_000, policy());
    const ended = withTrainEvents(
      TRAIN,
      { ...status(release('Succeeded')), outbox: wait.outbox },
      T,
      policy(),
    );
    expect(ended.outbox?.map((e) => e.type)).toEqual(['TrainWaiting', 'TrainPromoted']);
  });
});

describe('releaseOutcome', () => {
  it('names the failed member with its failure, and the members not started as stopped', () => {
    const statuses: Record<string, EnvironmentStatus> = {
      web: {
        history: [
          {
            revision: '5.1.0',
            attempts: 1,
            startedTime: 'x',
            failure: 'WebhookRejected: HTTP 503',
          },
        ],
        promotion: { revision: '5.1.0' },
      } as EnvironmentStatus,
      worker: { promotion: { revision: '1.8.1' } } as EnvironmentStatus,
    };
    const running: Record<string, string> = { api: '2.4.0' };
    const outcome = releaseOutcome(
      release('Failed', ['web']),
      (m) => statuses[m],
      (m) => running[m],
    );
    expect(outcome).toEqual({
      failed: [{ member: 'web', revision: '5.1.0', reason: 'WebhookRejected: HTTP 503' }],
      stopped: ['worker'],
    });
  });

  it('does not call a member stopped whose promotion was claimed', () => {
    const started = { promotion: { revision: '1.8.2' } } as EnvironmentStatus;
    const outcome = releaseOutcome(
      release('Failed', ['web']),
      (m) => (m === 'worker' ? started : undefined),
      () => undefined,
    );
    expect(outcome.stopped).toEqual(['api']);
    expect(outcome.failed[0]?.reason).toBe('its promotion failed');
  });
});

describe("a train's events on the wire", () => {
  const recorded = withTrainEvents(TRAIN, status(release('Failed', ['web'])), T, policy());
  const [fact] = trainFacts({ ...TRAIN, status: recorded });

  it('are facts about the train, with no targets', () => {
    expect(fact).toMatchObject({
      type: 'TrainFailed',
      pipeline: { namespace: 'shop', name: 'release' },
      targets: [],
      at: T,
    });
  });

  it('are a stream of their own beside a Pipeline of the same name', () => {
    if (fact === undefined) throw new Error('no fact');
    const pipelineFact: NotificationFact = { ...fact, type: 'PromotionFailed', revision: '1.0.0' };
    const { train: _train, ...plain } = pipelineFact;
    const alert: PromotionAlert = {
      apiVersion: 'notifications.promotion-gateway.dev/v1alpha1',
      kind: 'PromotionAlert',
      metadata: {
        namespace: 'shop',
        name: 'chat',
        uid: 'u1',
        creationTimestamp: '2026-12-07T09:00:00Z',
      },
      spec: { address: 'https://hooks.example/x' },
    };
    const round = planAlert(alert, [fact, plain], T + 10, {
      initialMs: 1_000,
      maxMs: 60_000,
      horizonMs: 86_400_000,
    });
    expect(round.streams.map((s) => s.kind ?? 'pipeline').sort()).toEqual(['pipeline', 'train']);
    expect(round.due).toHaveLength(2);
  });

  it('tell the train in every format', () => {
    if (fact === undefined) throw new Error('no fact');
    const { at: _at, ...rest } = fact;
    const event = { ...rest, id: 'evt_abcdefghijklmnopqrstuv' };
    expect(eventData(event).train).toEqual(recorded.outbox?.[0]?.train);
    expect(headline(event)).toBe('Train failed: shop/release → prod');
    expect(cloudEvent(event).source).toBe('/promotion-gateway/trains/shop/release');
    const cd = cdEventOf(event);
    expect(cd.kind).toBe('pipelinerun.finished');
    expect(cd.subject.content).toMatchObject({ pipelineName: 'shop/release', outcome: 'failure' });
    expect(eventFacts(event).map((f) => f.label)).toEqual([
      'Train',
      'Environment',
      'Combination',
      'Members',
      'Reason',
      'Failed',
      'Stopped',
    ]);
    const waitingEvent = {
      ...event,
      type: 'TrainWaiting' as const,
      train: { digest: DIGEST, members: MEMBERS, waitingFor: ['web'] },
    };
    expect(cdEventOf(waitingEvent).kind).toBe('pipelinerun.queued');
    expect(eventFacts(waitingEvent).at(-1)).toEqual({ label: 'Waiting for', value: 'web' });
  });
});
