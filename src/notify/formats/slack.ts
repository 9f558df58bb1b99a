/**
 * The slack format: the body of a Slack incoming webhook (https://api.slack.com/messaging/webhooks),
 * a `text` fallback (what notifications and screen readers show) and Block Kit `blocks`: a
 * header, the message, the facts as fields, and the event's time and id as context. Text is
 * escaped as Slack asks (`&`, `<`, `>`), so nothing in an event can become a link or a
 * mention, and clipped to Block Kit's limits so that Slack never refuses the message.
 */
import type { NotificationEvent } from '../notification-event.js';
import { clip, headline } from './event-names.js';
import type { FormattedBody } from './generic.js';
import { eventFacts } from './people.js';

/** Block Kit limits: header text, section text, one field's text. */
const HEADER_MAX = 150;
const SECTION_MAX = 3000;
const FIELD_MAX = 2000;

/** Slack's mrkdwn escaping: the only three characters Slack asks senders to escape. */
export function slackEscape(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** The Slack incoming-webhook payload of `event`. */
export function slackMessage(event: NotificationEvent): Record<string, unknown> {
  const title = headline(event);
  const blocks: unknown[] = [
    { type: 'header', text: { type: 'plain_text', text: clip(title, HEADER_MAX), emoji: false } },
  ];
  if (event.message !== '') {
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: clip(slackEscape(event.message), SECTION_MAX) },
    });
  }
  blocks.push({
    type: 'section',
    fields: eventFacts(event).map(({ label, value }) => ({
      type: 'mrkdwn',
      text: clip(`*${label}*\n${slackEscape(value)}`, FIELD_MAX),
    })),
  });
  blocks.push({
    type: 'context',
    elements: [{ type: 'mrkdwn', text: slackEscape(`${event.time} · ${event.id}`) }],
  });
  const fallback = event.message === '' ? title : `${title}: ${event.message}`;
  return { text: clip(slackEscape(fallback), SECTION_MAX), blocks };
}

/** The body of the slack format. */
export function slackBody(event: NotificationEvent): FormattedBody {
  return { contentType: 'application/json', body: JSON.stringify(slackMessage(event)) };
}
