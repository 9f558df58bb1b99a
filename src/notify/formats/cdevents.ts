/**
 * The cdevents format: each event as a CDEvent (specification v0.5.1, cdevents-vocabulary.ts
 * says which), sent as its CloudEvents binding says, in HTTP binary mode (the binding's own
 * examples): the whole CDEvent is the body (`content-type: application/json`) and the
 * CloudEvents context is in `ce-*` headers, each copied from the CDEvent (id, source, type,
 * subject id, timestamp). The gateway's own fields of the event are the CDEvent's `customData`.
 * The signature (webhook-signature, as for cloudevents) covers the body, so the context inside
 * it is signed too; the headers repeat it.
 */
import type { NotificationEvent } from '../notification-event.js';
import { cloudEventSource } from './cloudevents.js';
import {
  CDEVENTS_SPEC_VERSION,
  cdEventOf,
  cdEventSchemaUri,
  cdEventType,
  type CDEventSubject,
} from './cdevents-vocabulary.js';
import { eventData } from './event-names.js';
import type { FormattedBody } from './generic.js';

/** A CDEvent as this gateway writes it. */
export interface CDEvent {
  context: { specversion: string; id: string; source: string; type: string; timestamp: string };
  subject: CDEventSubject;
  customData: Record<string, unknown>;
  customDataContentType: 'application/json';
}

/** The CDEvent of `event`: the same event always gives the same CDEvent. */
export function cdEvent(event: NotificationEvent): CDEvent {
  const { kind, subject } = cdEventOf(event);
  const customData: Record<string, unknown> = { ...eventData(event) };
  if (event.previousRevision !== undefined) customData.previousRevision = event.previousRevision;
  return {
    context: {
      specversion: CDEVENTS_SPEC_VERSION,
      id: event.id,
      source: cloudEventSource(event),
      type: cdEventType(kind),
      timestamp: event.time,
    },
    subject,
    customData,
    customDataContentType: 'application/json',
  };
}

/** The body and CloudEvents binary-mode headers of the cdevents format. */
export function cdEventsBody(event: NotificationEvent): FormattedBody {
  const cd = cdEvent(event);
  const { kind } = cdEventOf(event);
  const headers = {
    'ce-specversion': '1.0',
    'ce-id': headerValue(cd.context.id),
    'ce-source': headerValue(cd.context.source),
    'ce-type': cd.context.type,
    'ce-subject': headerValue(cd.subject.id),
    'ce-time': cd.context.timestamp,
    'ce-dataschema': cdEventSchemaUri(kind),
  };
  return { contentType: 'application/json', body: JSON.stringify(cd), headers };
}

/**
 * A CloudEvents attribute as an HTTP header value: space, `"`, `%` and everything outside
 * printable ASCII percent-encoded as UTF-8 (CloudEvents HTTP binding 3.1.3.2).
 */
export function headerValue(value: string): string {
  return Array.from(value, (c) =>
    /^[\x21\x23\x24\x26-\x7e]$/.test(c)
      ? c
      : Array.from(
          Buffer.from(c, 'utf8'),
          (b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
        ).join(''),
  ).join('');
}
