/**
 * The cdevents format: every notification type becomes the CDEvent docs/notifications.md's table
 * names, valid against the specification's v0.5.1 schema of its type (vendored, ajv 2020-12),
 * sent in CloudEvents HTTP binary mode with the ce-* headers copied from the CDEvent, the
 * gateway's fields in customData, and signed like the other formats.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { formatDelivery } from '../../../src/notify/delivery-request.js';
import { headerValue, type CDEvent } from '../../../src/notify/formats/cdevents.js';
import { CDEVENT_KINDS, cdEventType } from '../../../src/notify/formats/cdevents-vocabulary.js';
import type { NotificationEvent } from '../../../src/notify/notification-event.js';
import {
  cdEventTypes,
  conformanceExamples,
  validateCDEvent,
} from '../../support/cdevents-schemas.js';
import { promotionEvent, whsec } from './format-fixtures.js';

const unhealthyTarget = {
  cluster: 'staging-eu',
  namespace: 'podinfo',
  name: 'podinfo',
  kind: 'HelmRelease',
  ready: false,
  revision: '6.5.4',
};

/** A train's release, as its events carry it. */
const trainRelease = {
  digest: `sha256:${'a'.repeat(64)}`,
  members: { api: '2.4.0', web: '5.1.0', worker: '1.8.2' },
};

/** One event of each notification type (and the variants that change the CDEvent), with the kind it maps to. */
const CASES: [string, Partial<NotificationEvent>, string][] = [
  ['WaitingForApproval', { type: 'WaitingForApproval', subject: '' }, 'pipelinerun.queued'],
  [
    'AuthorizationRecorded approve',
    { type: 'AuthorizationRecorded', decision: 'approve', principal: 'alice' },
    'pipelinerun.queued',
  ],
  [
    'AuthorizationRecorded reject',
    { type: 'AuthorizationRecorded', decision: 'reject', principal: 'bob', severity: 'error' },
    'pipelinerun.finished',
  ],
  ['PromotionStarted', { type: 'PromotionStarted' }, 'pipelinerun.started'],
  ['PromotionFailed', { type: 'PromotionFailed', severity: 'error' }, 'pipelinerun.finished'],
  ['PromotionSucceeded, first', { type: 'PromotionSucceeded' }, 'service.deployed'],
  [
    'PromotionSucceeded, after another',
    { type: 'PromotionSucceeded', previousRevision: '6.5.3' },
    'service.upgraded',
  ],
  ['RollbackStarted', { type: 'RollbackStarted', subject: 'run 2' }, 'pipelinerun.started'],
  ['RollbackFailed', { type: 'RollbackFailed' }, 'pipelinerun.finished'],
  ['RollbackSucceeded', { type: 'RollbackSucceeded' }, 'service.rolledback'],
  [
    'TargetUnhealthy',
    { type: 'TargetUnhealthy', targets: [unhealthyTarget], subject: 'staging-eu/podinfo' },
    'incident.detected',
  ],
  ['Drifted', { type: 'Drifted', subject: '2026-03-04T05:06:07Z' }, 'environment.modified'],
  [
    'TrainPromoted',
    { type: 'TrainPromoted', targets: [], train: trainRelease },
    'pipelinerun.finished',
  ],
  [
    'TrainWaiting',
    { type: 'TrainWaiting', targets: [], train: { ...trainRelease, waitingFor: ['api'] } },
    'pipelinerun.queued',
  ],
  [
    'TrainFailed',
    {
      type: 'TrainFailed',
      severity: 'error',
      targets: [],
      train: {
        ...trainRelease,
        failed: [{ member: 'web', revision: '5.1.0', reason: 'HTTP 503' }],
        stopped: ['worker'],
      },
    },
    'pipelinerun.finished',
  ],
  [
    'EventsMissing',
    { type: 'EventsMissing', environment: '', revision: '', targets: [], subject: 'x' },
    'incident.detected',
  ],
];

function delivered(event: NotificationEvent, credentials = {}) {
  const request = formatDelivery(event, { type: 'cdevents' }, credentials, 1_772_600_768_000);
  return { headers: request.headers, body: JSON.parse(request.body) as CDEvent, raw: request.body };
}

describe('the vendored CDEvents schemas', () => {
  it('define every kind the format sends, and judge the spec’s own examples', () => {
    expect(cdEventTypes().sort()).toEqual(CDEVENT_KINDS.map(cdEventType).sort());
    for (const [file, example] of conformanceExamples()) {
      expect(validateCDEvent(example), file).toEqual([]);
      const broken = structuredClone(example) as { subject: { id?: string } };
      delete broken.subject.id;
      expect(validateCDEvent(broken), file).not.toEqual([]);
    }
  });
});

describe('cdevents format', () => {
  it.each(CASES)('%s becomes a valid %s', (_name, overrides, kind) => {
    const event = promotionEvent(overrides);
    const { body } = delivered(event);
    expect(body.context.type).toBe(cdEventType(kind as (typeof CDEVENT_KINDS)[number]));
    expect(validateCDEvent(body)).toEqual([]);
    expect(body.context).toMatchObject({
      specversion: '0.5.1',
      id: event.id,
      // A train's events name the train (their `pipeline`), the others the Pipeline.
      source: `/promotion-gateway/${event.train === undefined ? 'pipelines' : 'trains'}/team-a/podinfo`,
      timestamp: event.time,
    });
    // The gateway's own fields, as the generic format's data, in customData.
    expect(body.customData).toMatchObject({ type: event.type, revision: event.revision });
    expect(body.customDataContentType).toBe('application/json');
  });

  it('sends every notification type as some mapped kind', () => {
    const covered = new Set(CASES.map(([, o]) => o.type));
    expect(covered.size).toBe(14);
    const kinds = new Set(CASES.map(([, , kind]) => kind));
    expect([...kinds].sort()).toEqual([...CDEVENT_KINDS].sort());
  });

  it('names the environment and the artifact as a purl, and a run per environment and revision', () => {
    const deployed = delivered(promotionEvent()).body;
    expect(deployed.subject).toEqual({
      id: 'helmrelease/podinfo',
      content: {
        environment: { id: 'staging', source: '/promotion-gateway/pipelines/team-a/podinfo' },
        artifactId: 'pkg:generic/podinfo@6.5.4%40sha256%3A0123abcd',
      },
    });
    const started = delivered(promotionEvent({ type: 'PromotionStarted' })).body.subject;
    const failed = delivered(promotionEvent({ type: 'PromotionFailed' })).body.subject;
    expect(started.id).toBe('staging/6.5.4@sha256:0123abcd');
    expect(failed.id).toBe(started.id);
    expect(failed.content).toMatchObject({ outcome: 'failure', pipelineName: 'team-a/podinfo' });
    expect(started.content.uri).toBe(
      'tag:promotion-gateway.dev,2026:pipelines/team-a/podinfo/environments/staging',
    );
    const again = delivered(promotionEvent({ type: 'PromotionStarted', subject: 'run 3' }));
    expect(again.body.subject.id).toBe('staging/6.5.4@sha256:0123abcd/run-3');
    const upgraded = delivered(promotionEvent({ previousRevision: '6.5.3' })).body;
    expect(upgraded.customData.previousRevision).toBe('6.5.3');
  });

  it('is CloudEvents binary mode: the context in ce-* headers, the CDEvent as the JSON body', () => {
    const { headers, body } = delivered(promotionEvent());
    expect(headers).toMatchObject({
      'content-type': 'application/json',
      'ce-specversion': '1.0',
      'ce-id': body.context.id,
      'ce-source': body.context.source,
      'ce-type': body.context.type,
      'ce-subject': body.subject.id,
      'ce-time': body.context.timestamp,
      'ce-dataschema': 'https://cdevents.dev/0.5.1/schema/service-deployed-event',
    });
    // No Standard Webhooks header unless the Secret signs, as cloudevents.
    expect(headers['webhook-id']).toBeUndefined();
  });

  it('signs the body like the other formats, and the Secret cannot replace a ce- header', () => {
    const secret = whsec();
    const extra = { 'ce-type': 'forged', 'ce-partitionkey': 'team-a', authorization: 'Bearer t' };
    const { headers, raw } = delivered(promotionEvent(), {
      signingSecret: secret.key,
      headers: extra,
    });
    const signed = `${headers['webhook-id']}.${headers['webhook-timestamp']}.${raw}`;
    const mac = createHmac('sha256', secret.key).update(signed).digest('base64');
    expect(headers['webhook-signature']).toBe(`v1,${mac}`);
    expect(headers['webhook-id']).toBe('evt_abcdefghijklmnopqrstuv');
    expect(headers['ce-type']).toBe('dev.cdevents.service.deployed.0.3.0');
    expect(headers['ce-partitionkey']).toBe('team-a');
    expect(raw).not.toContain('Bearer');
  });

  it('percent-encodes header values as the CloudEvents HTTP binding asks', () => {
    expect(headerValue('staging/6.5.4@sha256:ab')).toBe('staging/6.5.4@sha256:ab');
    expect(headerValue('prod eu "x" 100% é')).toBe('prod%20eu%20%22x%22%20100%25%20%C3%A9');
  });
});
