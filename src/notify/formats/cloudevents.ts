/**
 * The cloudevents format: a CloudEvents 1.0 event in structured mode over HTTP
 * (`content-type: application/cloudevents+json`, every attribute in the JSON body). The
 * (source, id) pair is unique per event, as the specification requires: the source names the
 * gateway and the Pipeline, the id is the event's stable id.
 */
import type { NotificationEvent } from '../notification-event.js';
import { cloudEventType, eventData } from './event-names.js';
import type { FormattedBody } from './generic.js';

/** The media type of a structured-mode CloudEvent in JSON. */
export const CLOUDEVENTS_CONTENT_TYPE = 'application/cloudevents+json';

/** A CloudEvents 1.0 event as this gateway writes it. */
export interface CloudEvent {
  specversion: '1.0';
  id: string;
  source: string;
  type: string;
  /** The environment; absent for an event about the whole Pipeline (a subject is never ''). */
  subject?: string;
  time: string;
  datacontenttype: 'application/json';
  data: Omit<NotificationEvent, 'id'>;
}

/**
 * `/promotion-gateway/pipelines/<namespace>/<name>`, a URI-reference naming the Pipeline; for a
 * train's events (TrainWaiting, TrainPromoted, TrainFailed), `/promotion-gateway/trains/<namespace>/<name>`.
 */
export function cloudEventSource(event: Pick<NotificationEvent, 'pipeline' | 'train'>): string {
  const { namespace, name } = event.pipeline;
  const kind = event.train === undefined ? 'pipelines' : 'trains';
  const segments = ['promotion-gateway', kind, namespace, name];
  return `/${segments.map(encodeURIComponent).join('/')}`;
}

/**
 * The structured-mode CloudEvent of `event`; `subject` is the environment it is about, left out
 * for an event about the whole Pipeline: CloudEvents 1.0 requires a subject to be non-empty.
 */
export function cloudEvent(event: NotificationEvent): CloudEvent {
  return {
    specversion: '1.0',
    id: event.id,
    source: cloudEventSource(event),
    type: cloudEventType(event.type),
    ...(event.environment === '' ? {} : { subject: event.environment }),
    time: event.time,
    datacontenttype: 'application/json',
    data: eventData(event),
  };
}

/** The body of the cloudevents format. */
export function cloudEventsBody(event: NotificationEvent): FormattedBody {
  return { contentType: CLOUDEVENTS_CONTENT_TYPE, body: JSON.stringify(cloudEvent(event)) };
}
