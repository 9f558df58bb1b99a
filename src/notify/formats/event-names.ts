/**
 * How each notification type is named on the wire and to people. Standard Webhooks asks for a
 * full-stop delimited, hierarchical type of `[a-zA-Z0-9_]` identifiers ("invoice.paid"), so
 * the generic format says `promotion.succeeded`: a receiver can route on the `promotion.`
 * prefix, and `data.type` keeps the PascalCase name a PromotionAlert's `eventTypes` uses.
 * CloudEvents asks for a reverse-DNS prefix: the same name under `dev.promotion-gateway.`
 * (the API group `notifications.promotion-gateway.dev`, reversed).
 */
import type {
  NotificationEvent,
  NotificationTarget,
  NotificationType,
} from '../notification-event.js';

/** The Standard Webhooks `type` of each notification type. */
export const WEBHOOK_EVENT_TYPES: Readonly<Record<NotificationType, string>> = {
  WaitingForApproval: 'promotion.waiting_for_approval',
  AuthorizationRecorded: 'promotion.authorization_recorded',
  PreviewChanged: 'promotion.preview_changed',
  PromotionStarted: 'promotion.started',
  ShadowHold: 'promotion.shadow_hold',
  PromotionSucceeded: 'promotion.succeeded',
  PromotionFailed: 'promotion.failed',
  RollbackStarted: 'rollback.started',
  RollbackSucceeded: 'rollback.succeeded',
  RollbackFailed: 'rollback.failed',
  TargetUnhealthy: 'target.unhealthy',
  Drifted: 'environment.drifted',
  TrainWaiting: 'train.waiting',
  TrainPromoted: 'train.promoted',
  TrainFailed: 'train.failed',
  EventsMissing: 'pipeline.events_missing',
};

/** The prefix of the CloudEvents `type`, reverse-DNS of the project's API domain. */
export const CLOUDEVENTS_TYPE_PREFIX = 'dev.promotion-gateway.';

/** What a person reads as the headline of each type. */
const TITLES: Readonly<Record<NotificationType, string>> = {
  WaitingForApproval: 'Waiting for approval',
  AuthorizationRecorded: 'Authorization recorded',
  PreviewChanged: 'An approval no longer counts',
  PromotionStarted: 'Promotion started',
  ShadowHold: 'A shadow gate would have held it',
  PromotionSucceeded: 'Promotion succeeded',
  PromotionFailed: 'Promotion failed',
  RollbackStarted: 'Rollback started',
  RollbackSucceeded: 'Rollback succeeded',
  RollbackFailed: 'Rollback failed',
  TargetUnhealthy: 'Target unhealthy',
  Drifted: 'Drifted',
  TrainWaiting: 'Train waiting',
  TrainPromoted: 'Train promoted',
  TrainFailed: 'Train failed',
  EventsMissing: 'Events missing',
};

/** The Standard Webhooks type of an event, e.g. `promotion.succeeded`. */
export function webhookEventType(type: NotificationType): string {
  return WEBHOOK_EVENT_TYPES[type];
}

/** The CloudEvents type of an event, e.g. `dev.promotion-gateway.promotion.succeeded`. */
export function cloudEventType(type: NotificationType): string {
  return CLOUDEVENTS_TYPE_PREFIX + WEBHOOK_EVENT_TYPES[type];
}

/**
 * The headline for people: `Promotion succeeded: team-a/podinfo → staging`, or for an event
 * about the whole Pipeline (environment '', as EventsMissing), `Events missing: team-a/podinfo`.
 */
export function headline(event: NotificationEvent): string {
  const { namespace, name } = event.pipeline;
  const where = event.environment === '' ? '' : ` → ${event.environment}`;
  return `${TITLES[event.type]}: ${namespace}/${name}${where}`;
}

/**
 * The event as data: every field of the contract but `id` (which travels in `webhook-id` or the
 * CloudEvents `id`), in the contract's order, optional fields only when present. Copied field
 * by field: whatever else the object carries at run time is never sent.
 */
export function eventData(event: NotificationEvent): Omit<NotificationEvent, 'id'> {
  const data: Omit<NotificationEvent, 'id'> = {
    type: event.type,
    time: event.time,
    pipeline: { namespace: event.pipeline.namespace, name: event.pipeline.name },
    environment: event.environment,
    revision: event.revision,
    reason: event.reason,
    message: event.message,
    severity: event.severity,
    targets: event.targets.map(targetData),
  };
  if (event.attempt !== undefined) data.attempt = event.attempt;
  if (event.principal !== undefined) data.principal = event.principal;
  if (event.decision !== undefined) data.decision = event.decision;
  if (event.wouldHold !== undefined)
    data.wouldHold = event.wouldHold.map(({ gate, name, reason }) => ({ gate, name, reason }));
  if (event.preview !== undefined) data.preview = previewData(event.preview);
  if (event.train !== undefined) data.train = trainData(event.train);
  return data;
}

function trainData(train: NonNullable<NotificationEvent['train']>) {
  const { digest, members, failed, stopped, waitingFor } = train;
  return {
    digest,
    members: { ...members },
    ...(waitingFor === undefined ? {} : { waitingFor: [...waitingFor] }),
    ...(failed === undefined
      ? {}
      : { failed: failed.map(({ member, revision, reason }) => ({ member, revision, reason })) }),
    ...(stopped === undefined ? {} : { stopped: [...stopped] }),
  };
}

function previewData(preview: NonNullable<NotificationEvent['preview']>) {
  const { digest, summary, url } = preview;
  return { digest, summary, ...(url === undefined ? {} : { url }) };
}

function targetData(target: NotificationTarget): NotificationTarget {
  const { cluster, namespace, name, kind, ready, revision } = target;
  const copy: NotificationTarget = { cluster, namespace, name, kind };
  if (ready !== undefined) copy.ready = ready;
  if (revision !== undefined) copy.revision = revision;
  return copy;
}

/** Shortens `text` to at most `max` characters, marking the cut with an ellipsis. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
