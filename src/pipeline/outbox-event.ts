/**
 * ours: status.outbox[i], one notification event the Pipeline owes its subscribers, recorded in
 * the status write that first recorded the fact it tells (a promotion started, a wait for an
 * approval, a drift ...), with its whole body: what is delivered later, to any PromotionAlert,
 * on any attempt, is this record, never something derived again from a status that has moved on
 * (docs/notifications.md, "Events").
 */
import type { Static } from 'typebox';
import type { OutboxEventSchema, OutboxTargetSchema } from '../shapes/pipeline-outbox.js';

/** A target as an event tells it: where, what, and as the gateway verified it then. */
export type OutboxTarget = Static<typeof OutboxTargetSchema>;

/** One recorded event; `environment` '' is about the whole Pipeline (EventsMissing). */
export type OutboxEvent = Static<typeof OutboxEventSchema>;
