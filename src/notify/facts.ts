/**
 * The notification facts a Pipeline's stored status tells, derived again on every look (level-
 * triggered): promotions from each environment's history, waits and authorizations from their
 * records, unhealthy targets of a promoted revision from the verified view, and the
 * EventsMissing condition. Every fact carries the time its record gives, so the same status
 * always yields the same facts, on any replica, after any restart. Pure.
 */
import { createHash } from 'node:crypto';
import type {
  EnvironmentStatus,
  Pipeline,
  PipelineHead,
  PipelineEnvironment,
  TargetStatusRecord,
} from '../pipeline/pipeline-resource.js';
import { parseTimestamp } from '../time/kube-time.js';
import { NOTIFICATION_TYPES, type NotificationTarget } from './notification-event.js';
import { base, type EnvContext, type NotificationFact } from './fact-context.js';
import { promotionFacts } from './history-facts.js';

export type { NotificationFact } from './fact-context.js';

/** The stream the Pipeline-wide EventsMissing fact belongs to (no environment). */
export const PIPELINE_STREAM = '';

/** Every fact of `pipeline`, ordered per environment by time, then by lifecycle, then subject. */
export function factsOf(pipeline: Pipeline): NotificationFact[] {
  const facts: NotificationFact[] = [];
  pipeline.spec.environments.forEach((env, index) => {
    const status = pipeline.status?.environments?.[env.name];
    if (status === undefined) return;
    const context = { pipeline, env, status, targets: targetsOf(pipeline, env, status) };
    facts.push(...promotionFacts(context), ...authorizationFacts(context));
    facts.push(...waitingFacts(context), ...previewChangedFacts(context));
    if (index > 0) facts.push(...unhealthyFacts(context), ...driftFacts(context));
  });
  facts.push(...eventsMissingFacts(pipeline));
  return facts.sort(compareFacts);
}

/** The order of delivery within a stream: time, then the lifecycle order, then subject. */
export function compareFacts(a: NotificationFact, b: NotificationFact): number {
  if (a.at !== b.at) return a.at - b.at;
  const rank = NOTIFICATION_TYPES.indexOf(a.type) - NOTIFICATION_TYPES.indexOf(b.type);
  if (rank !== 0) return rank;
  return a.subject < b.subject ? -1 : a.subject > b.subject ? 1 : 0;
}

/**
 * The event id of `fact` for the alert `alertUid`: the same on every attempt and replica,
 * another for each (alert, pipeline, environment, revision, type, subject).
 */
export function eventId(alertUid: string, fact: NotificationFact): string {
  const { namespace, name } = fact.pipeline;
  const key = [alertUid, namespace, name, fact.environment, fact.revision, fact.type, fact.subject];
  return `evt_${createHash('sha256').update(JSON.stringify(key)).digest('base64url').slice(0, 22)}`;
}

const AUTHORIZATION_REASONS = {
  approve: 'Approved',
  reject: 'Rejected',
  'break-glass': 'BreakGlass',
  rollback: 'RollbackRequested',
} as const;

function authorizationFacts(ctx: EnvContext): NotificationFact[] {
  const facts: NotificationFact[] = [];
  for (const record of ctx.status.approvals ?? []) {
    const fact = base(ctx, 'AuthorizationRecorded', record.revision, record.time);
    if (fact === undefined) continue;
    const reason = AUTHORIZATION_REASONS[record.decision];
    facts.push({
      ...fact,
      subject: `${record.principal} ${record.decision}`,
      reason,
      severity: record.decision === 'approve' ? 'info' : 'error',
      message: `${record.principal} recorded ${record.decision} of ${record.revision} for ${ctx.env.name}`,
      principal: record.principal,
      decision: record.decision,
    });
  }
  return facts;
}

function waitingFacts(ctx: EnvContext): NotificationFact[] {
  const waiting = ctx.status.waitingApproval;
  if (waiting?.since === undefined) return [];
  const fact = base(ctx, 'WaitingForApproval', waiting.revision, waiting.since);
  if (fact === undefined) return [];
  const preview = waiting.preview;
  const told =
    preview === undefined
      ? `; its preview was not known when the wait began: ${previewPath(ctx)}`
      : `: ${preview.summary}; an approval may sign ${preview.digest}; the whole change: ${previewPath(ctx)}`;
  return [
    {
      ...fact,
      subject: '',
      reason: 'WaitingForApproval',
      severity: 'info',
      message: `${ctx.env.name} waits for an approval of ${waiting.revision}${told}`,
      ...(preview === undefined ? {} : { preview: { ...preview } }),
    },
  ];
}

/**
 * One fact per approver whose approval of the waiting revision stopped counting because the
 * change it was bound to moved (`waitingApproval.previewChanged`), when the gateway found it.
 */
function previewChangedFacts(ctx: EnvContext): NotificationFact[] {
  const waiting = ctx.status.waitingApproval;
  const facts: NotificationFact[] = [];
  for (const { principal, digest, since } of waiting?.previewChanged ?? []) {
    const fact = base(ctx, 'PreviewChanged', waiting?.revision ?? '', since);
    if (fact === undefined) continue;
    facts.push({
      ...fact,
      // One event per stale approval: an approver whose next approval goes stale is told again.
      subject: digest === undefined ? principal : `${principal} ${digest}`,
      reason: 'PreviewChanged',
      severity: 'info',
      message: `${principal}'s approval of ${fact.revision} for ${ctx.env.name} no longer counts: the change it was bound to is not the one the promotion would make now (the base or a source moved); approve the change as it is now: ${previewPath(ctx)}`,
      principal,
    });
  }
  return facts;
}

/** The API path of the pending promotion's preview: names alone, so the body is decided once. */
function previewPath(ctx: EnvContext): string {
  const { namespace, name } = ctx.pipeline.metadata;
  return `GET /v1/pipelines/${namespace}/${name}/environments/${encodeURIComponent(ctx.env.name)}/preview`;
}

/**
 * Targets of a promoted environment found unhealthy at the revision its latest promotion
 * succeeded with, after that success: once per target and revision.
 */
function unhealthyFacts(ctx: EnvContext): NotificationFact[] {
  const promoted = [...(ctx.status.history ?? [])].reverse().find((e) => e.succeededTime);
  const since = parseTimestamp(promoted?.succeededTime);
  if (promoted === undefined || since === undefined) return [];
  const facts: NotificationFact[] = [];
  (ctx.status.targets ?? []).forEach((record, i) => {
    if (record.ready || record.revision !== promoted.revision) return;
    const observed = parseTimestamp(record.observedTime);
    if (observed === undefined || observed < since) return;
    const fact = base(ctx, 'TargetUnhealthy', promoted.revision, record.observedTime ?? '');
    const target = ctx.targets[i];
    if (fact === undefined || target === undefined) return;
    facts.push({
      ...fact,
      subject: `${target.cluster}/${target.namespace}`,
      reason: 'TargetUnhealthy',
      severity: 'error',
      targets: [target],
      message: `${target.kind} ${target.namespace}/${target.name} on ${target.cluster} is unhealthy at ${promoted.revision}: ${record.error ?? 'not ready'}`,
    });
  });
  return facts;
}

/** One Drifted fact per drift episode (its `since`), about the revision that was promoted. */
function driftFacts(ctx: EnvContext): NotificationFact[] {
  const drift = ctx.status.drift;
  if (drift === undefined) return [];
  const fact = base(ctx, 'Drifted', drift.promoted, drift.since);
  if (fact === undefined) return [];
  const { namespace, name } = ctx.pipeline.metadata;
  const running = drift.running.length === 0 ? 'no revision' : drift.running.join(', ');
  const history = drift.arrived ? 'it ran it, then left it' : 'it never ran it';
  return [
    {
      ...fact,
      subject: drift.since,
      reason: 'Drifted',
      severity: 'error',
      message: `${namespace}/${name} ${ctx.env.name} runs ${running}, not ${drift.promoted} that was promoted there (${history})`,
    },
  ];
}

function eventsMissingFacts(pipeline: Pipeline): NotificationFact[] {
  const condition = pipeline.status?.conditions?.find((c) => c.type === 'EventsMissing');
  if (condition?.status !== 'True') return [];
  const at = parseTimestamp(condition.lastTransitionTime);
  if (at === undefined) return [];
  const { namespace, name } = pipeline.metadata;
  return [
    {
      type: 'EventsMissing',
      time: new Date(at).toISOString(),
      at,
      pipeline: { namespace, name },
      environment: PIPELINE_STREAM,
      revision: '',
      subject: condition.lastTransitionTime,
      reason: condition.reason,
      severity: 'error',
      message: condition.message,
      targets: [],
    },
  ];
}

function targetsOf(
  pipeline: Pipeline,
  env: PipelineEnvironment,
  status: EnvironmentStatus,
): NotificationTarget[] {
  return env.targets.map((target, i) => {
    const record: TargetStatusRecord | undefined = status.targets?.[i];
    return {
      cluster: target.clusterRef?.name ?? 'management',
      namespace: target.namespace,
      name: pipeline.spec.appRef.name,
      kind: pipeline.spec.appRef.kind,
      ...(record === undefined ? {} : { ready: record.ready }),
      ...(record?.revision === undefined ? {} : { revision: record.revision }),
    };
  });
}

/**
 * Each Pipeline's facts as `read` makes them, read once per version of it: keyed by its catalog
 * head, which is a new object whenever the Pipeline changes (and let go with it).
 */
export class FactsByVersion {
  private readonly facts = new WeakMap<PipelineHead, NotificationFact[]>();

  /** `read` is what a Pipeline's facts are: its recorded outbox (outbox-record.ts). */
  constructor(private readonly read: (pipeline: Pipeline) => NotificationFact[]) {}

  /** The facts of `head`'s Pipeline, which `whole` gives whole (none once it is gone). */
  of(head: PipelineHead, whole: (head: PipelineHead) => Pipeline | undefined): NotificationFact[] {
    const known = this.facts.get(head);
    if (known !== undefined) return known;
    const pipeline = whole(head);
    if (pipeline === undefined) return [];
    const facts = this.read(pipeline);
    this.facts.set(head, facts);
    return facts;
  }
}
