/**
 * What each format calls an event in its title: the Pipeline and the environment it is about
 * (`→ staging`), and for an event about the whole Pipeline (EventsMissing, environment '') the
 * Pipeline alone, with no dangling arrow, no empty Environment fact and, in a CloudEvent, no
 * empty subject (CloudEvents 1.0 requires a present subject to be non-empty).
 */
import { describe, expect, it } from 'vitest';
import { formatDelivery } from '../../../src/notify/delivery-request.js';
import { headline } from '../../../src/notify/formats/event-names.js';
import type { NotificationEvent } from '../../../src/notify/notification-event.js';
import { compileTemplate } from '../../../src/notify/template.js';
import { promotionEvent } from './format-fixtures.js';

const { attempt: _attempt, ...withoutAttempt } = promotionEvent();
/** EventsMissing as the gateway derives it: about the Pipeline, no environment, no revision. */
const EVENTS_MISSING: NotificationEvent = {
  ...withoutAttempt,
  type: 'EventsMissing',
  reason: 'EventsMissing',
  severity: 'error',
  environment: '',
  revision: '',
  message: 'the resync found 2 changes no Flux event announced',
  targets: [],
};

interface Slack {
  text: string;
  blocks: { type: string; text?: { text: string }; fields?: { text: string }[] }[];
}
interface Teams {
  attachments: {
    content: { body: { type: string; text?: string; facts?: { title: string }[] }[] };
  }[];
}

const body = (type: 'generic' | 'cloudevents' | 'slack' | 'msteams', event: NotificationEvent) =>
  JSON.parse(formatDelivery(event, { type }, {}, 0).body) as unknown;

describe('titles of an event about the whole Pipeline (EventsMissing)', () => {
  it('headline: the Pipeline alone', () => {
    expect(headline(EVENTS_MISSING)).toBe('Events missing: team-a/podinfo');
    expect(headline(promotionEvent())).toBe('Promotion succeeded: team-a/podinfo → staging');
  });

  it('slack: the header and the fallback text name the Pipeline, with no Environment field', () => {
    const slack = body('slack', EVENTS_MISSING) as Slack;
    expect(slack.blocks[0]?.text?.text).toBe('Events missing: team-a/podinfo');
    expect(slack.text).toBe(
      'Events missing: team-a/podinfo: the resync found 2 changes no Flux event announced',
    );
    const fields = slack.blocks.flatMap((b) => b.fields ?? []).map((f) => f.text);
    expect(fields).toEqual([
      '*Pipeline*\nteam-a/podinfo',
      '*Reason*\nEventsMissing',
      '*Targets*\n0',
    ]);
  });

  it('msteams: the card headline names the Pipeline, with no Environment fact', () => {
    const teams = body('msteams', EVENTS_MISSING) as Teams;
    const elements = teams.attachments[0]?.content.body ?? [];
    expect(elements[0]).toMatchObject({
      type: 'TextBlock',
      text: 'Events missing: team-a/podinfo',
    });
    const facts = elements.flatMap((e) => e.facts ?? []).map((f) => f.title);
    expect(facts).toEqual(['Pipeline', 'Reason', 'Targets']);
  });

  it('cloudevents: no subject, the Pipeline in the source', () => {
    const event = body('cloudevents', EVENTS_MISSING) as Record<string, unknown>;
    expect(event).not.toHaveProperty('subject');
    expect(event).toMatchObject({
      source: '/promotion-gateway/pipelines/team-a/podinfo',
      type: 'dev.promotion-gateway.pipeline.events_missing',
    });
    expect(body('cloudevents', promotionEvent())).toMatchObject({ subject: 'staging' });
  });

  it('generic: the type names the Pipeline, and its data keep the empty environment', () => {
    const generic = body('generic', EVENTS_MISSING) as { type: string; data: object };
    expect(generic.type).toBe('pipeline.events_missing');
    expect(generic.data).toMatchObject({ environment: '', revision: '' });
    const template = compileTemplate('{{environment}}', { contentType: 'text/plain' });
    if (!template.ok) throw new Error(template.problem);
    expect(template.template.render(EVENTS_MISSING)).toBe('');
  });

  it.each(['generic', 'cloudevents', 'slack', 'msteams'] as const)(
    '%s: no arrow points at nothing',
    (type) => {
      expect(formatDelivery(EVENTS_MISSING, { type }, {}, 0).body).not.toMatch(/→\s*("|$|:)/);
    },
  );
});
