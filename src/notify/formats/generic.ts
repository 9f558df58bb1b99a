/**
 * The generic format: a Standard Webhooks payload, `{"type", "timestamp", "data"}`. `type` is
 * the dotted name of event-names.ts, `timestamp` is when the event happened (the attempt's time
 * is the `webhook-timestamp` header), `data` the event without its id (that is `webhook-id`).
 * With a template, the body is the template rendered instead. The same event always gives the
 * same body, so every retry sends the same bytes.
 */
import type { NotificationEvent } from '../notification-event.js';
import type { CompiledTemplate } from '../template.js';
import { eventData, webhookEventType } from './event-names.js';

/** A body and the content type it is sent with. */
export interface FormattedBody {
  contentType: string;
  body: string;
  /** Headers the format itself sets (cdevents' `ce-*`), lower-case; they win over the Secret's. */
  headers?: Readonly<Record<string, string>>;
}

/** The generic body of `event`: the Standard Webhooks payload, or the template's rendering. */
export function genericBody(event: NotificationEvent, template?: CompiledTemplate): FormattedBody {
  if (template !== undefined) {
    return { contentType: template.contentType, body: template.render(event) };
  }
  const payload = {
    type: webhookEventType(event.type),
    timestamp: event.time,
    data: eventData(event),
  };
  return { contentType: 'application/json', body: JSON.stringify(payload) };
}
