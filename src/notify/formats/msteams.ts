/**
 * The msteams format: what a Teams Workflows (Power Automate) "post to a channel when a webhook
 * request is received" flow takes, a message with one Adaptive Card attachment (version 1.4,
 * which Teams renders): the headline, coloured by outcome, the message, and the facts as a
 * FactSet. The retired Office 365 connector's MessageCard is not sent.
 */
import type { NotificationEvent } from '../notification-event.js';
import { clip, headline } from './event-names.js';
import type { FormattedBody } from './generic.js';
import { eventFacts } from './people.js';

/** The attachment's content type for an Adaptive Card. */
export const ADAPTIVE_CARD_CONTENT_TYPE = 'application/vnd.microsoft.card.adaptive';

// Teams refuses messages over about 28 KB; no event comes near that once texts are clipped.
const TEXT_MAX = 3000;

/** The headline's colour: Good for a success, Attention for an error, Default otherwise. */
function colour(event: NotificationEvent): 'Good' | 'Attention' | 'Default' {
  if (event.severity === 'error') return 'Attention';
  return event.type === 'PromotionSucceeded' || event.type === 'TrainPromoted' ? 'Good' : 'Default';
}

/** The Adaptive Card of `event`. */
export function adaptiveCard(event: NotificationEvent): Record<string, unknown> {
  const body: unknown[] = [
    {
      type: 'TextBlock',
      text: clip(headline(event), TEXT_MAX),
      weight: 'Bolder',
      size: 'Medium',
      color: colour(event),
      wrap: true,
    },
  ];
  if (event.message !== '') {
    body.push({ type: 'TextBlock', text: clip(event.message, TEXT_MAX), wrap: true });
  }
  body.push({
    type: 'FactSet',
    facts: eventFacts(event).map(({ label, value }) => ({
      title: label,
      value: clip(value, TEXT_MAX),
    })),
  });
  body.push({
    type: 'TextBlock',
    text: `${event.time} · ${event.id}`,
    isSubtle: true,
    size: 'Small',
    wrap: true,
  });
  return {
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    type: 'AdaptiveCard',
    version: '1.4',
    body,
  };
}

/** The Teams webhook payload of `event`: a message with the card as its one attachment. */
export function teamsMessage(event: NotificationEvent): Record<string, unknown> {
  return {
    type: 'message',
    attachments: [
      { contentType: ADAPTIVE_CARD_CONTENT_TYPE, contentUrl: null, content: adaptiveCard(event) },
    ],
  };
}

/** The body of the msteams format. */
export function teamsBody(event: NotificationEvent): FormattedBody {
  return { contentType: 'application/json', body: JSON.stringify(teamsMessage(event)) };
}
