/**
 * ours: status.outbox[i], one notification event the Pipeline owes its subscribers, recorded in
 * the status write that first recorded the fact it tells (a promotion started, a wait for an
 * approval, a drift ...), with its whole body: what is delivered later, to any PromotionAlert,
 * on any attempt, is this record, never something derived again from a status that has moved on
 * (docs/notifications.md, "Events").
 */

/** A target as an event tells it: where, what, and as the gateway verified it then. */
export interface OutboxTarget {
  cluster: string;
  namespace: string;
  name: string;
  kind: string;
  ready?: boolean;
  revision?: string;
}

/** One recorded event; `environment` '' is about the whole Pipeline (EventsMissing). */
export interface OutboxEvent {
  type: string;
  environment: string;
  /** The revision it is about ('' for EventsMissing). */
  revision: string;
  /** Tells apart events of one type and revision (a principal, a target, an episode's start). */
  subject: string;
  /** When the fact happened, as the status recorded it (RFC 3339, milliseconds). */
  time: string;
  reason: string;
  message: string;
  severity: 'info' | 'error';
  targets: OutboxTarget[];
  attempt?: number;
  principal?: string;
  decision?: string;
}
