/**
 * Computing the weave-compatible Pipeline .status from verified target state and the
 * evaluator's decisions. Pure: the caller supplies `now`; promotion records pass through as
 * stored, since only the claim and the outcome writer may change them.
 */
import { Reasons } from '../evaluate/reasons.js';
import type { EnvironmentDecision, Evaluation, TargetStatus } from '../evaluate/decisions.js';
import type {
  AppRef,
  Condition,
  EnvironmentStatus,
  Pipeline,
  PipelineStatus,
  PipelineTarget,
  TargetStatusRecord,
} from '../pipeline/pipeline-resource.js';
import { jsonEqual } from '../json/json-equal.js';
import { truncate } from '../text/text.js';
import { rfc3339 } from '../time/kube-time.js';

/** Condition types the gateway sets on a Pipeline. */
export const ConditionTypes = {
  Ready: 'Ready',
  PromotionPending: 'PromotionPending',
  EventsMissing: 'EventsMissing',
  Drifted: 'Drifted',
} as const;

/** Reasons of EventsMissing: True while some change was found only by the resync, then False. */
export const EventsMissingReasons = {
  Unannounced: 'UnannouncedChanges',
  Arriving: 'EventsArriving',
} as const;

/** Longest `error` text stored for one target. */
export const MaxTargetError = 1024;

/** Inputs of computeStatus; `targets[env]` is aligned with that environment's spec targets. */
export interface ComputeStatusArgs {
  pipeline: Pipeline;
  targets: Record<string, TargetStatus[]>;
  evaluation: Evaluation;
  /** Milliseconds since the epoch, for new condition transitions. */
  now: number;
}

/**
 * The status the Pipeline should have: one entry per spec environment (targets, the stored
 * promotion record, waitingApproval), Ready and PromotionPending conditions whose
 * lastTransitionTime survives when their status did not change, and observedGeneration.
 */
export function computeStatus(args: ComputeStatusArgs): PipelineStatus {
  const { pipeline } = args;
  const generation = pipeline.metadata.generation;
  const decisions = new Map(args.evaluation.decisions.map((d) => [d.environment, d]));
  const environments: Record<string, EnvironmentStatus> = {};
  const verified: (TargetStatus | undefined)[] = [];
  for (const env of pipeline.spec.environments) {
    const statuses = args.targets[env.name] ?? [];
    env.targets.forEach((_, i) => verified.push(statuses[i]));
    environments[env.name] = environmentStatus(
      pipeline,
      env.name,
      env.targets,
      statuses,
      decisions.get(env.name),
    );
  }
  const stored = pipeline.status?.conditions ?? [];
  const conditions = [readyCondition(verified), pendingCondition(args.evaluation.decisions)].map(
    (c) => finishCondition(c, stored, args.now, generation),
  );
  return {
    ...(generation === undefined ? {} : { observedGeneration: generation }),
    conditions,
    environments,
  };
}

function environmentStatus(
  pipeline: Pipeline,
  envName: string,
  specTargets: PipelineTarget[],
  statuses: TargetStatus[],
  decision: EnvironmentDecision | undefined,
): EnvironmentStatus {
  const promotion = pipeline.status?.environments?.[envName]?.promotion;
  const waiting = decision?.outcome === 'WaitingApproval' ? decision.revision : undefined;
  // `since` is the view's to keep (status/view-change.ts); this is the drift as decided now.
  const drift = decision?.drift;
  return {
    targets: specTargets.map((t, i) => targetRecord(pipeline.spec.appRef, t, statuses[i])),
    ...(promotion === undefined ? {} : { promotion }),
    ...(waiting === undefined ? {} : { waitingApproval: waitingOf(waiting, decision) }),
    ...(drift === undefined ? {} : { drift: { ...drift, running: [...drift.running], since: '' } }),
  };
}

/**
 * The wait as decided now: its revision, and the approvers whose approval no longer counts as
 * their change moved (`since` is the view's to stamp, status/view-change.ts).
 */
function waitingOf(
  revision: string,
  decision: EnvironmentDecision | undefined,
): NonNullable<EnvironmentStatus['waitingApproval']> {
  const changed = decision?.gate?.previewChanged ?? [];
  if (changed.length === 0) return { revision };
  return {
    revision,
    previewChanged: changed.map(({ principal, digest }) => ({ principal, digest, since: '' })),
  };
}

/** One weave TargetStatus record of a verified status; not verified (yet) = not ready. */
export function targetRecord(
  appRef: AppRef,
  target: PipelineTarget,
  status: TargetStatus | undefined,
): TargetStatusRecord {
  const clusterAppRef: TargetStatusRecord['clusterAppRef'] = {
    apiVersion: appRef.apiVersion,
    kind: appRef.kind,
    name: appRef.name,
    ...(target.clusterRef === undefined ? {} : { clusterRef: { ...target.clusterRef } }),
  };
  if (status === undefined) {
    return { clusterAppRef, ready: false, error: 'NotVerified: the target has not been read yet' };
  }
  const ready = status.health === 'Healthy';
  const error = status.message === '' ? status.reason : `${status.reason}: ${status.message}`;
  return {
    clusterAppRef,
    ready,
    ...(status.revision === undefined ? {} : { revision: status.revision }),
    ...(ready ? {} : { error: truncate(error, MaxTargetError) }),
  };
}

type DraftCondition = Pick<Condition, 'type' | 'status' | 'reason' | 'message'>;

function readyCondition(targets: (TargetStatus | undefined)[]): DraftCondition {
  const total = targets.length;
  const notReady = targets.filter((t) => t?.health === 'Unhealthy').length;
  const unknown = targets.filter((t) => t === undefined || t.health === 'Unknown').length;
  const type = ConditionTypes.Ready;
  if (notReady > 0) {
    const also = unknown > 0 ? `, ${unknown} unknown` : '';
    const message = `${notReady} of ${total} targets not ready${also}`;
    return { type, status: 'False', reason: 'TargetsNotReady', message };
  }
  if (unknown > 0) {
    const message = `${unknown} of ${total} targets unknown`;
    return { type, status: 'False', reason: 'TargetsUnknown', message };
  }
  return {
    type,
    status: 'True',
    reason: 'AllTargetsReady',
    message: `All ${total} targets are ready`,
  };
}

/** Whether a decision means a promotion is still on its way to this environment. */
function isPending(decision: EnvironmentDecision): boolean {
  switch (decision.outcome) {
    case 'Promote':
    case 'RollBack':
    case 'Waiting':
    case 'WaitingApproval':
      return true;
    case 'AlreadyPromoted':
      return decision.reason === Reasons.PromotionInProgress;
    default:
      return false;
  }
}

function pendingCondition(decisions: EnvironmentDecision[]): DraftCondition {
  const type = ConditionTypes.PromotionPending;
  const first = decisions.find(isPending);
  if (first === undefined) {
    return {
      type,
      status: 'False',
      reason: 'NoPromotionPending',
      message: 'No promotion is pending',
    };
  }
  // A message that counts time from now (a soak's time left) has a steady form for the status.
  const text = first.statusMessage ?? first.message;
  const message = truncate(`${first.environment}: ${text}`, MaxTargetError);
  return { type, status: 'True', reason: conditionReason(first), message };
}

/** metav1.Condition reasons must match this; an odd decision reason falls back to the outcome. */
const reasonPattern = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;

function conditionReason(decision: EnvironmentDecision): string {
  return reasonPattern.test(decision.reason) && decision.reason.length <= 1024
    ? decision.reason
    : decision.outcome;
}

/**
 * EventsMissing, from the target records a view writes: True while some record's state was
 * found by a resync pass with no event about the object (`unannounced`), naming those targets;
 * then False (EventsArriving), kept so that the history shows; absent on a Pipeline whose
 * changes were always announced.
 */
export function eventsMissingCondition(
  pipeline: Pipeline,
  environments: Readonly<Record<string, EnvironmentStatus>>,
  now: number,
): Condition | undefined {
  const missing: string[] = [];
  for (const env of pipeline.spec.environments) {
    env.targets.forEach((target, i) => {
      const record = environments[env.name]?.targets?.[i];
      if (record?.unannounced === true) missing.push(describeTarget(env.name, target, record));
    });
  }
  const type = ConditionTypes.EventsMissing;
  const stored = pipeline.status?.conditions ?? [];
  if (missing.length === 0 && !stored.some((c) => c.type === type)) return undefined;
  const draft: DraftCondition =
    missing.length === 0
      ? {
          type,
          status: 'False',
          reason: EventsMissingReasons.Arriving,
          message: 'An event has arrived about every change the resync found unannounced',
        }
      : {
          type,
          status: 'True',
          reason: EventsMissingReasons.Unannounced,
          message: truncate(
            `No Flux event announced these changes; the resync found them: ${missing.join('; ')}. ` +
              "Check the Alert covering each namespace, the Provider's key and its address",
            MaxTargetError,
          ),
        };
  return finishCondition(draft, stored, now, pipeline.metadata.generation);
}

function describeTarget(env: string, target: PipelineTarget, record: TargetStatusRecord): string {
  const { kind, name } = record.clusterAppRef;
  const cluster = target.clusterRef?.name;
  const where = cluster === undefined ? 'the management cluster' : `cluster ${cluster}`;
  const revision = record.revision === undefined ? '' : ` (${record.revision})`;
  return `${env}: ${kind} ${target.namespace}/${name}${revision} in ${where}`;
}

/** Adds transition time (kept from the stored condition when its status is unchanged). */
function finishCondition(
  draft: DraftCondition,
  stored: Condition[],
  now: number,
  generation: number | undefined,
): Condition {
  const previous = stored.find((c) => c.type === draft.type);
  const lastTransitionTime =
    previous?.status === draft.status ? previous.lastTransitionTime : rfc3339(now);
  return {
    type: draft.type,
    status: draft.status,
    ...(generation === undefined ? {} : { observedGeneration: generation }),
    lastTransitionTime,
    reason: draft.reason,
    message: draft.message,
  };
}

/** Deep equality of two statuses as JSON (see jsonEqual); an absent status equals `{}`. */
export function statusEqual(a: PipelineStatus | undefined, b: PipelineStatus | undefined): boolean {
  return jsonEqual(a ?? {}, b ?? {});
}
