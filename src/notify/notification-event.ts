/**
 * What a notification says: one promotion event of one environment of one Pipeline, as the
 * Pipeline's outbox recorded it (docs/notifications.md). The same
 * event has the same `id` on every delivery attempt and on every replica, so a receiver can
 * drop duplicates; nothing in it is secret (no URLs with credentials, no tokens, no bodies).
 */
import type { OutboxTarget } from '../pipeline/outbox-event.js';
import { NOTIFICATION_TYPES } from '../shapes/promotion-alert.js';
import type { ShadowHoldRecord } from '../pipeline/pipeline-resource.js';
import type { TrainOutboxEvent } from '../trains/train-resource.js';

/** What a train's event (TrainWaiting, TrainPromoted, TrainFailed) tells of the release. */
export type TrainEventDetails = TrainOutboxEvent['train'];

/** The event types a PromotionAlert may select (declared with its shape). */
export { NOTIFICATION_TYPES };

/** One of NOTIFICATION_TYPES. */
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

/** A target the event is about, as the gateway verified it (never a credential). */
export type NotificationTarget = OutboxTarget;

/** One event, ready to be formatted for a receiver. */
export interface NotificationEvent {
  /**
   * Stable per (alert, pipeline, environment, revision, type, subject): `evt_` and 22
   * base64url characters. Every retry and every replica sends the same id.
   */
  id: string;
  type: NotificationType;
  /** When it happened, as recorded in the Pipeline status (RFC 3339, milliseconds). */
  time: string;
  /** The Pipeline; for a train's events (TrainWaiting, TrainPromoted, TrainFailed), the train. */
  pipeline: { namespace: string; name: string };
  environment: string;
  /**
   * The revision it is about ('' for EventsMissing, which is about the Pipeline; the
   * combination's digest for a train's events).
   */
  revision: string;
  /** PascalCase, e.g. PromotionSucceeded, the failure's reason, Approved, Rejected. */
  reason: string;
  /** One sentence a person can read; secret-free. */
  message: string;
  severity: 'info' | 'error';
  targets: NotificationTarget[];
  /** The attempt number, for promotion events. */
  attempt?: number;
  /** Who authorized, for AuthorizationRecorded. */
  principal?: string;
  /** approve, reject or break-glass, for AuthorizationRecorded. */
  decision?: string;
  /** For ShadowHold: the gates in mode Shadow that would have held the promotion. */
  wouldHold?: ShadowHoldRecord[];
  /**
   * For WaitingForApproval: the pending change as previewed when the wait began (its digest an
   * approval may sign, its summary) and, when the web view's address is configured, its page.
   */
  preview?: { digest: string; summary: string; url?: string };
  /**
   * For PromotionSucceeded: the revision the environment's history last shows succeeded before
   * this one; absent for the environment's first promotion (cdevents: deployed, not upgraded).
   */
  previousRevision?: string;
  /**
   * For a train's events: the release (its digest and members' revisions); for TrainWaiting,
   * the members whose gates hold it; for TrainFailed, the members that failed and why, and
   * those stopped before they started.
   */
  train?: TrainEventDetails;
  /**
   * What tells apart events of one type (facts.ts): `run N` for a revision's later runs, a
   * principal, a target. Not sent by the generic, cloudevents, slack or msteams formats.
   */
  subject?: string;
}
