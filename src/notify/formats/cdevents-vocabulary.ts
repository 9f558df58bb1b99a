/**
 * Which CDEvents event (https://cdevents.dev, specification v0.5.1) tells each notification type,
 * and its subject: a promotion or rollback is a pipeline run of the environment; a success is
 * the service deployed, upgraded or rolled back in the environment; an unhealthy target or
 * missing Flux events an incident; a drift the environment modified. The table is in
 * docs/notifications.md ("cdevents"). Pure.
 */
import type { NotificationEvent, NotificationTarget } from '../notification-event.js';
import { cloudEventSource } from './cloudevents.js';

/** The CDEvents specification release the events follow (`context.specversion`). */
export const CDEVENTS_SPEC_VERSION = '0.5.1';

/** The event types sent, each at the version v0.5.1 defines (all 0.3.0). */
export const CDEVENT_KINDS = [
  'pipelinerun.queued',
  'pipelinerun.started',
  'pipelinerun.finished',
  'service.deployed',
  'service.upgraded',
  'service.rolledback',
  'environment.modified',
  'incident.detected',
] as const;

/** One of CDEVENT_KINDS: `<subject>.<predicate>`. */
export type CDEventKind = (typeof CDEVENT_KINDS)[number];

/** The version of every event type of CDEVENT_KINDS in the specification release. */
const EVENT_VERSION = '0.3.0';

/**
 * Names the Pipeline environments absolutely (pipelinerun and environment `uri` must be absolute
 * URIs, and the gateway knows no URL of its own): a `tag:` URI (RFC 4151) minted under the
 * project's API domain, needing no registration.
 */
const TAG_PREFIX = 'tag:promotion-gateway.dev,2026:';

/** A CDEvents subject: its id (unique within the event's source) and content. */
export interface CDEventSubject {
  id: string;
  content: Record<string, unknown>;
}

/** The event type of `kind`, e.g. `dev.cdevents.service.deployed.0.3.0`. */
export function cdEventType(kind: CDEventKind): string {
  return `dev.cdevents.${kind}.${EVENT_VERSION}`;
}

/** The `$id` of the specification's schema of `kind` (the CloudEvents `dataschema`). */
export function cdEventSchemaUri(kind: CDEventKind): string {
  return `https://cdevents.dev/${CDEVENTS_SPEC_VERSION}/schema/${kind.replace('.', '-')}-event`;
}

/** The CDEvents event kind and subject that tell `event`. */
export function cdEventOf(event: NotificationEvent): {
  kind: CDEventKind;
  subject: CDEventSubject;
} {
  switch (event.type) {
    case 'WaitingForApproval':
      return pipelineRun(event, 'pipelinerun.queued', {});
    // The run still waits, now for another approval.
    case 'PreviewChanged':
      return pipelineRun(event, 'pipelinerun.queued', {});
    case 'AuthorizationRecorded':
      // A rejection ends the run that waited for it; anything else lets it go on waiting or start.
      return event.decision === 'reject'
        ? pipelineRun(event, 'pipelinerun.finished', { outcome: 'cancel', errors: event.message })
        : pipelineRun(event, 'pipelinerun.queued', {});
    // No CDEvent tells of a gate that would have held a run: a ShadowHold is the run's start
    // told again, with the gates in customData.
    case 'PromotionStarted':
    case 'RollbackStarted':
    case 'ShadowHold':
      return pipelineRun(event, 'pipelinerun.started', {});
    case 'PromotionFailed':
    case 'RollbackFailed':
      return pipelineRun(event, 'pipelinerun.finished', {
        outcome: 'failure',
        errors: event.message,
      });
    case 'PromotionSucceeded':
      return service(event, event.previousRevision === undefined ? 'deployed' : 'upgraded');
    case 'RollbackSucceeded':
      return service(event, 'rolledback');
    case 'Drifted':
      return {
        kind: 'environment.modified',
        subject: { id: event.environment, content: { name: event.environment, uri: uriOf(event) } },
      };
    case 'TargetUnhealthy':
    case 'EventsMissing':
      return incident(event);
    // A train's release into an environment is a run of its own: the combination's digest is
    // its revision, the train its pipeline.
    case 'TrainWaiting':
      return pipelineRun(event, 'pipelinerun.queued', {});
    case 'TrainPromoted':
      return pipelineRun(event, 'pipelinerun.finished', { outcome: 'success' });
    case 'TrainFailed':
      return pipelineRun(event, 'pipelinerun.finished', {
        outcome: 'failure',
        errors: event.message,
      });
  }
}

/**
 * A run of the environment: one per (environment, revision, run), so a revision's queued,
 * started and finished events share it; `run N` (a revision running again) is its own run.
 */
function pipelineRun(
  event: NotificationEvent,
  kind: CDEventKind,
  extra: Record<string, string>,
): { kind: CDEventKind; subject: CDEventSubject } {
  const later = /^run ([0-9]+)$/.exec(event.subject ?? '')?.[1];
  const id = `${event.environment}/${event.revision}${later === undefined ? '' : `/run-${later}`}`;
  const pipelineName = `${event.pipeline.namespace}/${event.pipeline.name}`;
  return { kind, subject: { id, content: { pipelineName, uri: uriOf(event), ...extra } } };
}

function service(
  event: NotificationEvent,
  predicate: 'deployed' | 'upgraded' | 'rolledback',
): { kind: CDEventKind; subject: CDEventSubject } {
  const app = event.targets[0];
  const content = { environment: environmentRef(event), artifactId: artifactId(event, app) };
  return {
    kind: `service.${predicate}`,
    subject: { id: app === undefined ? event.environment : serviceId(app), content },
  };
}

/** An incident: a target unhealthy at its revision, or the Pipeline missing Flux events. */
function incident(event: NotificationEvent): { kind: CDEventKind; subject: CDEventSubject } {
  const target = event.targets[0];
  const content: Record<string, unknown> = {
    description: event.message,
    environment: environmentRef(event),
  };
  if (target !== undefined) content.service = { id: serviceId(target), source: sourceOf(event) };
  if (event.revision !== '') content.artifactId = artifactId(event, target);
  const where =
    event.type === 'TargetUnhealthy' && target !== undefined
      ? `${event.environment}/${target.cluster}/${target.namespace}/unhealthy/${event.revision}`
      : `events-missing/${event.subject ?? event.time}`;
  return { kind: 'incident.detected', subject: { id: where, content } };
}

/**
 * The environment as services and incidents refer to it: its name within the Pipeline (the
 * source); `*` for an event about every environment of the Pipeline (EventsMissing).
 */
function environmentRef(event: NotificationEvent): { id: string; source: string } {
  return { id: event.environment === '' ? '*' : event.environment, source: sourceOf(event) };
}

/** `helmrelease/podinfo`: the Flux object the Pipeline promotes, as kubectl names it. */
function serviceId(target: NotificationTarget): string {
  return `${target.kind.toLowerCase()}/${target.name}`;
}

/**
 * The artifact as a purl (the specification's `artifactId` type): `pkg:generic/<app>@<revision>`,
 * the revision percent-encoded as purl versions are (`6.5.4@sha256:…` -> `6.5.4%40sha256%3A…`).
 */
function artifactId(event: NotificationEvent, app: NotificationTarget | undefined): string {
  const name = app?.name ?? event.pipeline.name;
  return `pkg:generic/${encodeURIComponent(name)}@${encodeURIComponent(event.revision)}`;
}

function uriOf(event: NotificationEvent): string {
  const { namespace, name } = event.pipeline;
  const env =
    event.environment === '' ? '' : `/environments/${encodeURIComponent(event.environment)}`;
  const kind = event.train === undefined ? 'pipelines' : 'trains';
  return `${TAG_PREFIX}${kind}/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}${env}`;
}

function sourceOf(event: NotificationEvent): string {
  return cloudEventSource(event);
}
