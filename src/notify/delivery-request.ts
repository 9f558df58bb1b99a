/**
 * One NotificationEvent turned into the HTTP request for one receiver: the body in the alert's
 * format, its content type, the Standard Webhooks headers and signatures, and the Secret's
 * extra headers, which can never replace the gateway's own. Pure apart from the signing: the
 * time is an argument, and the same event, format and time always give the same request.
 * Nothing of the credentials reaches the body.
 */
import type { KeyObject } from 'node:crypto';
import { allowedExtraHeaders } from '../outbound/extra-headers.js';
import { cdEventsBody } from './formats/cdevents.js';
import { cloudEventsBody } from './formats/cloudevents.js';
import { genericBody, type FormattedBody } from './formats/generic.js';
import { teamsBody } from './formats/msteams.js';
import { slackBody } from './formats/slack.js';
import type { NotificationEvent } from './notification-event.js';
import { signs, standardWebhookHeaders } from '../outbound/webhook-signing.js';
import type { CompiledTemplate } from './template.js';

/** The formats a PromotionAlert's `spec.type` names; generic is the default. */
export const DELIVERY_FORMATS = ['generic', 'cloudevents', 'cdevents', 'slack', 'msteams'] as const;

/** How the body is written: a template only with generic (compiled at load, see template.ts). */
export type DeliveryFormat =
  | { type: 'generic'; template?: CompiledTemplate }
  | { type: 'cloudevents' | 'cdevents' | 'slack' | 'msteams' };

/** What the alert's Secret contributes, already decoded (alert-secret-keys.ts, outbound/extra-headers.ts). */
export interface DeliveryCredentials {
  /** HMAC key bytes: a `v1` signature. */
  signingSecret?: Buffer;
  /** ed25519 private key: a `v1a` signature. */
  signingKey?: KeyObject;
  /** Extra headers; reserved names and invalid names or values are dropped. */
  headers?: Readonly<Record<string, string>>;
}

/** The request to POST: lower-case header names, the exact body that was signed. */
export interface DeliveryRequest {
  headers: Record<string, string>;
  body: string;
}

/**
 * The request for `event` in `format`, attempted at `nowMs`. generic always carries
 * `webhook-id` and `webhook-timestamp`; every format carries `webhook-signature` (with those
 * two) when the credentials sign, and no Standard Webhooks header otherwise, except generic.
 */
export function formatDelivery(
  event: NotificationEvent,
  format: DeliveryFormat,
  credentials: DeliveryCredentials,
  nowMs: number,
): DeliveryRequest {
  const { contentType, body, headers: own } = formatBody(event, format);
  const headers = allowedExtraHeaders(credentials.headers);
  // Set after the extra headers, so the gateway's own always win.
  Object.assign(headers, own);
  headers['content-type'] = contentType;
  if (format.type === 'generic' || signs(credentials)) {
    Object.assign(headers, standardWebhookHeaders(event.id, nowMs, body, credentials));
  }
  return { headers, body };
}

/** The body of `event` in `format`, and its content type. */
export function formatBody(event: NotificationEvent, format: DeliveryFormat): FormattedBody {
  switch (format.type) {
    case 'generic':
      return genericBody(event, format.template);
    case 'cloudevents':
      return cloudEventsBody(event);
    case 'cdevents':
      return cdEventsBody(event);
    case 'slack':
      return slackBody(event);
    case 'msteams':
      return teamsBody(event);
  }
}
