/**
 * What each format's body says: the Standard Webhooks payload, a CloudEvents 1.0 structured
 * event with its required attributes, a Slack Block Kit message and a Teams Adaptive Card,
 * escaped and clipped for their receivers, and never anything of the credentials.
 */
import { describe, expect, it } from 'vitest';
import { formatDelivery, type DeliveryFormat } from '../../../src/notify/delivery-request.js';
import {
  cloudEventType,
  WEBHOOK_EVENT_TYPES,
  webhookEventType,
} from '../../../src/notify/formats/event-names.js';
import { NOTIFICATION_TYPES } from '../../../src/notify/notification-event.js';
import { ed25519Pair, promotionEvent, whsec } from './format-fixtures.js';

type Json = Record<string, unknown> & { data?: Record<string, unknown>; source?: string };
interface SlackText {
  type: string;
  text: string;
  emoji?: boolean;
}
interface SlackBody {
  text: string;
  blocks: { type: string; text?: SlackText; fields?: SlackText[] }[];
}
interface CardElement {
  type: string;
  text?: string;
  color?: string;
  facts?: { title: string; value: string }[];
}
interface TeamsBody {
  type: string;
  attachments: {
    contentType: string;
    content: { type: string; version: string; body: CardElement[] };
  }[];
}

function bodyOf(format: DeliveryFormat, event = promotionEvent()): Json {
  const request = formatDelivery(event, format, {}, 0);
  return JSON.parse(request.body) as Json;
}

function slack(event = promotionEvent()): SlackBody {
  return bodyOf({ type: 'slack' }, event) as unknown as SlackBody;
}

function card(event = promotionEvent()): CardElement[] {
  const body = bodyOf({ type: 'msteams' }, event) as unknown as TeamsBody;
  return body.attachments[0]!.content.body;
}

describe('event type names', () => {
  it('are Standard Webhooks style, distinct, dotted [a-z_] identifiers', () => {
    const names = NOTIFICATION_TYPES.map(webhookEventType);
    expect(new Set(names).size).toBe(NOTIFICATION_TYPES.length);
    for (const name of names) expect(name).toMatch(/^[a-z_]+(\.[a-z_]+)+$/);
    expect(webhookEventType('PromotionSucceeded')).toBe('promotion.succeeded');
    expect(Object.keys(WEBHOOK_EVENT_TYPES)).toEqual([...NOTIFICATION_TYPES]);
  });

  it('CloudEvents types are the same names under a reverse-DNS prefix', () => {
    expect(cloudEventType('PromotionFailed')).toBe('dev.promotion-gateway.promotion.failed');
  });
});

describe('generic', () => {
  it('is {type, timestamp, data}: the event time and the event without its id', () => {
    const event = promotionEvent();
    const body = bodyOf({ type: 'generic' }, event);
    expect(Object.keys(body)).toEqual(['type', 'timestamp', 'data']);
    expect(body.type).toBe('promotion.succeeded');
    expect(body.timestamp).toBe(event.time);
    const { id: _id, ...rest } = event;
    expect(body.data).toEqual(rest);
    expect(JSON.stringify(body)).not.toContain(event.id);
  });

  it('sends the contract fields only, whatever else the object carries', () => {
    const event = { ...promotionEvent(), token: 's3cret' } as ReturnType<typeof promotionEvent>;
    event.targets[0] = { ...event.targets[0]!, kubeconfig: 'k3y' } as never;
    const text = formatDelivery(event, { type: 'generic' }, {}, 0).body;
    expect(text).not.toContain('s3cret');
    expect(text).not.toContain('k3y');
  });
});

describe('cloudevents', () => {
  it('is a structured-mode CloudEvent 1.0 with the required and chosen attributes', () => {
    const event = promotionEvent();
    const request = formatDelivery(event, { type: 'cloudevents' }, {}, 0);
    expect(request.headers['content-type']).toBe('application/cloudevents+json');
    const body = JSON.parse(request.body) as Json;
    expect(body).toMatchObject({
      specversion: '1.0',
      id: event.id,
      source: '/promotion-gateway/pipelines/team-a/podinfo',
      type: 'dev.promotion-gateway.promotion.succeeded',
      subject: 'staging',
      time: event.time,
      datacontenttype: 'application/json',
    });
    // Context attribute names: lower-case a-z and digits only (CloudEvents 1.0, naming).
    for (const key of Object.keys(body)) expect(key).toMatch(/^[a-z0-9]+$/);
    for (const key of ['id', 'source', 'specversion', 'type']) {
      expect(typeof body[key]).toBe('string');
      expect(body[key]).not.toBe('');
    }
    expect(Number.isNaN(Date.parse(body.time as string))).toBe(false);
    expect(body.data?.revision).toBe(event.revision);
    expect(body.data?.id).toBeUndefined();
  });

  it('gives every event its own (source, id) and the pipeline its own source', () => {
    const a = bodyOf({ type: 'cloudevents' });
    const b = bodyOf(
      { type: 'cloudevents' },
      promotionEvent({ pipeline: { namespace: 'team-b', name: 'podinfo' } }),
    );
    expect(a.source).not.toBe(b.source);
  });
});

describe('slack', () => {
  it('has a fallback text and a header, the message, the facts and a context', () => {
    const body = slack();
    expect(body.text).toBe(
      'Promotion succeeded: team-a/podinfo → staging: podinfo 6.5.4 was promoted to staging',
    );
    expect(body.blocks.map((b) => b.type)).toEqual(['header', 'section', 'section', 'context']);
    expect(body.blocks[0]!.text).toEqual({
      type: 'plain_text',
      text: 'Promotion succeeded: team-a/podinfo → staging',
      emoji: false,
    });
    expect(body.blocks[2]!.fields!.map((f) => f.text)).toEqual([
      '*Pipeline*\nteam-a/podinfo',
      '*Environment*\nstaging',
      '*Revision*\n6.5.4@sha256:0123abcd',
      '*Reason*\nPromotionSucceeded',
      '*Targets*\n2 (1 ready)',
    ]);
  });

  it('escapes what Slack would read as links or mentions, and stays within Block Kit limits', () => {
    const event = promotionEvent({
      message: `<!channel> <https://evil.example|click> & ${'x'.repeat(5000)}`,
      pipeline: { namespace: 'n'.repeat(100), name: 'p'.repeat(100) },
    });
    const body = slack(event);
    const text = JSON.stringify(body);
    expect(text).not.toContain('<!channel>');
    expect(text).not.toContain('<https://');
    expect(body.blocks[1]!.text!.text).toMatch(
      /^&lt;!channel&gt; &lt;https:\/\/evil.example\|click&gt; &amp; x+…$/,
    );
    expect(body.blocks[0]!.text!.text.length).toBeLessThanOrEqual(150);
    expect(body.blocks[1]!.text!.text.length).toBeLessThanOrEqual(3000);
    expect(body.text.length).toBeLessThanOrEqual(3000);
  });

  it('leaves out what an event does not have: no environment, revision or message', () => {
    const event = promotionEvent({
      type: 'EventsMissing',
      reason: 'EventsMissing',
      environment: '',
      revision: '',
      message: '',
      targets: [],
    });
    const body = slack(event);
    expect(body.blocks.map((b) => b.type)).toEqual(['header', 'section', 'context']);
    expect(body.blocks[1]!.fields!.map((f) => f.text)).toEqual([
      '*Pipeline*\nteam-a/podinfo',
      '*Reason*\nEventsMissing',
      '*Targets*\n0',
    ]);
  });

  it('names who decided an authorization', () => {
    const event = promotionEvent({
      type: 'AuthorizationRecorded',
      principal: 'alice@example.com',
      decision: 'approve',
    });
    const fields = slack(event).blocks[2]!.fields!;
    expect(fields.at(-1)!.text).toBe('*By*\nalice@example.com (approve)');
  });
});

describe('msteams', () => {
  it('is a message with one Adaptive Card attachment', () => {
    const body = bodyOf({ type: 'msteams' }) as unknown as TeamsBody;
    expect(body.type).toBe('message');
    expect(body.attachments).toHaveLength(1);
    const [attachment] = body.attachments;
    expect(attachment!.contentType).toBe('application/vnd.microsoft.card.adaptive');
    expect(attachment!.content).toMatchObject({ type: 'AdaptiveCard', version: '1.4' });
    const elements = attachment!.content.body;
    expect(elements.map((b) => b.type)).toEqual(['TextBlock', 'TextBlock', 'FactSet', 'TextBlock']);
    expect(elements[0]).toMatchObject({
      text: 'Promotion succeeded: team-a/podinfo → staging',
      color: 'Good',
    });
    expect(elements[2]!.facts).toContainEqual({ title: 'Targets', value: '2 (1 ready)' });
  });

  it('colours an error Attention and anything else but a success Default', () => {
    const failed = card(promotionEvent({ type: 'PromotionFailed', severity: 'error' }));
    expect(failed[0]!.color).toBe('Attention');
    expect(card(promotionEvent({ type: 'PromotionStarted' }))[0]!.color).toBe('Default');
  });
});

describe('credentials never reach a body', () => {
  it.each(['generic', 'cloudevents', 'slack', 'msteams'] as const)('%s', (type) => {
    const secret = whsec();
    const pair = ed25519Pair();
    const pem = pair.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const request = formatDelivery(
      promotionEvent(),
      { type },
      {
        signingSecret: secret.key,
        signingKey: pair.privateKey,
        headers: { authorization: 'Bearer zz-t0ken' },
      },
      0,
    );
    for (const needle of [
      secret.text.slice(6),
      secret.key.toString('hex'),
      'zz-t0ken',
      pem.split('\n')[1]!,
    ]) {
      expect(request.body).not.toContain(needle);
    }
  });
});
