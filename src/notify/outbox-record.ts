/**
 * The Pipeline's outbox (status.outbox): each notification event is decided once, in the status
 * write that first records the fact it tells, and kept with its whole body until it is older
 * than the delivery horizon. Every status write of the gateway passes through `withOwedEvents`
 * (the one status writer's last step, so no stage can forget it): the facts the new status
 * tells (facts.ts) that the outbox does not hold yet are appended, for the Pipelines and event
 * types some PromotionAlert selects. From then on an event is delivered, superseded or dropped
 * (outbox.ts), and nothing a later status says (an approval clearing a wait, a target read
 * again) takes it back or changes its body. Pure.
 */
import type { Pipeline, PipelineStatus } from '../pipeline/pipeline-resource.js';
import type { OutboxEvent } from '../pipeline/outbox-event.js';
import { parseTimestamp } from '../time/kube-time.js';
import { compareFacts, factsOf, type NotificationFact } from './facts.js';
import { NOTIFICATION_TYPES, type NotificationType } from './notification-event.js';

/**
 * The most events one stream (environment) keeps, and one Pipeline: the oldest go first (newer
 * revisions' events supersede them). A busy environment makes about three events a promotion;
 * 100 cover some thirty promotions within the horizon while its receiver is down.
 */
export const MAX_OUTBOX_STREAM = 100;
/** The most events one Pipeline's outbox keeps (the CRD's maxItems). */
export const MAX_OUTBOX = 1000;

/**
 * How long past the delivery horizon an event is kept: an event is dropped (and counted) by the
 * alerts' rounds at the horizon, so it must still be there when they look.
 */
export const OUTBOX_KEEP_MARGIN_MS = 60 * 60_000;

/** What recording needs: the horizon, and which events are wanted at all. */
export interface OutboxPolicy {
  /** An event older than this is never delivered (config notifications.horizonMs). */
  horizonMs: number;
  /** Whether some PromotionAlert selects `pipeline` and wants events of `type`. */
  wants(pipeline: Pipeline, type: NotificationType): boolean;
  /** The web view's external address (config ui.externalUrl): events link to its pages. */
  viewUrl?: string | undefined;
}

/**
 * `next` (the status about to be written over `stored`) with the events its facts newly owe
 * appended to the outbox, and events past the horizon and its margin let go. Facts older than
 * the horizon are never recorded (no alert would be sent them).
 */
export function withOwedEvents(
  stored: Pipeline,
  next: PipelineStatus,
  now: number,
  policy: OutboxPolicy,
): PipelineStatus {
  const kept = (next.outbox ?? []).filter(
    (e) => (parseTimestamp(e.time) ?? -Infinity) >= now - policy.horizonMs - OUTBOX_KEEP_MARGIN_MS,
  );
  const owed = owedEvents({ ...stored, status: { ...next, outbox: kept } }, now, policy);
  const outbox = capped([...kept, ...owed]);
  const { outbox: _previous, ...rest } = next;
  return outbox.length === 0 ? rest : { ...rest, outbox };
}

/**
 * The events `pipeline`'s status owes that its outbox does not hold yet (facts younger than the
 * horizon that some alert wants), in the order they happened.
 */
export function owedEvents(pipeline: Pipeline, now: number, policy: OutboxPolicy): OutboxEvent[] {
  const known = new Set((pipeline.status?.outbox ?? []).map(eventKey));
  return factsOf(pipeline)
    .filter((f) => f.at >= now - policy.horizonMs && !known.has(eventKey(f)))
    .filter((f) => policy.wants(pipeline, f.type))
    .sort(compareFacts)
    .map((fact) => recordOf(fact, policy.viewUrl));
}

/** The recorded events of `pipeline` as facts, in the order they happened. */
export function outboxFacts(pipeline: Pipeline): NotificationFact[] {
  const { namespace, name } = pipeline.metadata;
  const facts: NotificationFact[] = [];
  for (const event of pipeline.status?.outbox ?? []) {
    const at = parseTimestamp(event.time);
    if (at === undefined || !isType(event.type)) continue;
    facts.push({ ...event, type: event.type, at, pipeline: { namespace, name } });
  }
  return facts.sort(compareFacts);
}

/** The identity of an event within its Pipeline: what its per-alert id is derived from. */
function eventKey(e: Pick<OutboxEvent, 'type' | 'environment' | 'revision' | 'subject'>): string {
  return JSON.stringify([e.type, e.environment, e.revision, e.subject]);
}

/**
 * A fact as the outbox records it: its body whole, without what the Pipeline itself names; a
 * preview linked to its page in the web view when the view's address is known.
 */
function recordOf(fact: NotificationFact, viewUrl: string | undefined): OutboxEvent {
  const { at: _at, pipeline, type, targets, preview, ...body } = fact;
  const record: OutboxEvent = { type, ...body, targets: targets.map((t) => ({ ...t })) };
  if (preview === undefined) return record;
  const path = [pipeline.namespace, pipeline.name, 'environments', fact.environment, 'preview']
    .map(encodeURIComponent)
    .join('/');
  const url = viewUrl === undefined ? undefined : `${viewUrl}/pipelines/${path}`;
  return { ...record, preview: { ...preview, ...(url === undefined ? {} : { url }) } };
}

/** Each stream's newest MAX_OUTBOX_STREAM events, at most MAX_OUTBOX, the outbox's order kept. */
function capped(events: readonly OutboxEvent[]): OutboxEvent[] {
  const counts = new Map<string, number>();
  const keep: boolean[] = [];
  for (let i = events.length - 1; i >= 0; i--) {
    const stream = events[i]?.environment ?? '';
    const n = (counts.get(stream) ?? 0) + 1;
    counts.set(stream, n);
    keep[i] = n <= MAX_OUTBOX_STREAM;
  }
  return events.filter((_, i) => keep[i] === true).slice(-MAX_OUTBOX);
}

function isType(type: string): type is NotificationType {
  return (NOTIFICATION_TYPES as readonly string[]).includes(type);
}
