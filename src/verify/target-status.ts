/**
 * Reads a Flux app object (HelmRelease or Kustomization), as fetched from its own cluster, into
 * the TargetStatus the evaluator decides on. Pure: no I/O, the object is only read.
 */
import type { TargetLocation, TargetStatus } from '../evaluate/decisions.js';
import type { KubeObject, ReadFailureReason } from '../kube/ports.js';
import { revisionSourceOf, type FluxAppKind, type RevisionSource } from '../pipeline/flux-kinds.js';
import { clip, flatten, truncate } from '../text/text.js';
import { checkRevision, revisionKindOf } from './revision-kinds.js';

/** Longest condition message kept, in characters. */
export const MAX_MESSAGE_LENGTH = 256;
// metav1.Condition's reason pattern, with a length cap of our own.
const REASON = /^[A-Za-z]([A-Za-z0-9_,:]{0,62}[A-Za-z0-9_])?$/;

type Fields = Record<string, unknown>;

/** The location of the object `key` names: a new `{cluster, namespace}`, nothing more. */
export function locationOfKey(key: { cluster: string; namespace: string }): TargetLocation {
  return { cluster: key.cluster, namespace: key.namespace };
}

/**
 * The verified status of one app object. Healthy = Ready=True, observedGeneration equal to
 * metadata.generation, and neither Stalled nor Reconciling; anything else is Unhealthy with
 * the most telling reason; an unsupported apiVersion/kind is Unknown (UnsupportedKind), and so
 * is a revision not of its kind (InvalidRevision, see revision-kinds.ts): we cannot tell what
 * runs there, so nothing is decided on it.
 */
export function targetStatusFromObject(obj: KubeObject, location: TargetLocation): TargetStatus {
  const source = revisionSourceOf(obj.apiVersion, obj.kind);
  if (source === undefined) {
    return targetStatusFromFailure(
      'UnsupportedKind',
      `${clip(obj.kind, 63)} ${clip(obj.apiVersion, 127)} is not a supported app kind`,
      location,
    );
  }
  const what = `${obj.kind} ${clip(obj.metadata.name, 253)}`;
  const status = asFields(obj.status);
  // A supported version implies a supported kind.
  const kind = revisionKindOf(obj.kind as FluxAppKind['kind']);
  const checked = checkRevision(
    kind,
    status === undefined ? undefined : readRevision(status, source),
  );
  if (checked.state === 'invalid') {
    // Not clip(): the quoted value is already escaped, and its spaces are part of it.
    const message = truncate(`${what} ${checked.message}`, MAX_MESSAGE_LENGTH);
    return targetStatus(location, 'Unknown', 'InvalidRevision', message);
  }
  const revision = checked.state === 'valid' ? checked.revision : undefined;
  const health = readHealth(obj, status, what);
  if (health.health === 'Healthy' && revision === undefined) {
    const reason = source === 'helmHistory' ? 'NoDeployedRelease' : 'NoAppliedRevision';
    const detail =
      source === 'helmHistory' ? 'no deployed release in its history' : 'no applied revision';
    return targetStatus(location, 'Unhealthy', reason, `${what} is Ready but has ${detail}`);
  }
  const message =
    health.health === 'Healthy' ? `${what} is ready at ${String(revision)}` : health.message;
  return targetStatus(location, health.health, health.reason, message, revision);
}

/**
 * One status, built in one literal with a flat message: one is kept per target (60,000 at
 * fleet scale), and an object given its fields one by one keeps some of them out of line.
 */
function targetStatus(
  location: TargetLocation,
  health: TargetStatus['health'],
  reason: string,
  message: string,
  revision?: string,
): TargetStatus {
  const flat = flatten(message);
  return revision === undefined
    ? { location, health, reason, message: flat }
    : { location, health, reason, message: flat, revision };
}

/** A target that could not be read: always Unknown, with the read's reason and a capped message. */
export function targetStatusFromFailure(
  reason: ReadFailureReason,
  message: string,
  location: TargetLocation,
): TargetStatus {
  return targetStatus(location, 'Unknown', reason, clip(message, MAX_MESSAGE_LENGTH));
}

type Health = Pick<TargetStatus, 'health' | 'reason' | 'message'>;

function readHealth(obj: KubeObject, status: Fields | undefined, what: string): Health {
  if (status === undefined) return unhealthy('NotReady', `${what} has no status yet`);
  const generation = obj.metadata.generation;
  const observed = status.observedGeneration;
  const conditions = readConditions(status);
  const ready = conditions.get('Ready');
  // A Ready left over from the previous spec says nothing about the current one.
  const readyGeneration = ready?.observedGeneration;
  if (
    typeof generation !== 'number' ||
    observed !== generation ||
    (typeof readyGeneration === 'number' && readyGeneration !== generation)
  ) {
    return unhealthy(
      'StaleGeneration',
      `${what} status is for generation ${typeof observed === 'number' ? observed : 'none'}, ` +
        `not ${typeof generation === 'number' ? generation : 'unknown'}`,
    );
  }
  const stalled = conditions.get('Stalled');
  if (stalled?.status === 'True')
    return unhealthy('Stalled', `${what} is stalled${conditionDetail(stalled)}`);
  const reconciling = conditions.get('Reconciling');
  if (reconciling?.status === 'True') {
    return unhealthy('Reconciling', `${what} is reconciling${conditionDetail(reconciling)}`);
  }
  if (ready === undefined) return unhealthy('NotReady', `${what} has no Ready condition`);
  if (ready.status !== 'True') {
    return unhealthy(
      reasonOf(ready) ?? 'NotReady',
      `${what} is not ready${conditionDetail(ready)}`,
    );
  }
  return { health: 'Healthy', reason: 'Ready', message: `${what} is ready` };
}

function unhealthy(reason: string, message: string): Health {
  return { health: 'Unhealthy', reason, message };
}

/** Conditions by type; the first of a type wins, as in Flux's own condition helpers. */
function readConditions(status: Fields): Map<string, Fields> {
  const byType = new Map<string, Fields>();
  const list = status.conditions;
  if (!Array.isArray(list)) return byType;
  for (const item of list) {
    const condition = asFields(item);
    const type = condition?.type;
    if (condition !== undefined && typeof type === 'string' && !byType.has(type))
      byType.set(type, condition);
  }
  return byType;
}

function reasonOf(condition: Fields): string | undefined {
  const reason = condition.reason;
  return typeof reason === 'string' && REASON.test(reason) ? reason : undefined;
}

function conditionDetail(condition: Fields): string {
  const reason = reasonOf(condition);
  const message = condition.message;
  const text =
    typeof message === 'string' && message !== '' ? `: ${clip(message, MAX_MESSAGE_LENGTH)}` : '';
  return `${reason === undefined ? '' : ` (${reason})`}${text}`;
}

/** The reported revision as found, unchecked: revision-kinds.ts decides what it may be. */
function readRevision(status: Fields, source: RevisionSource): unknown {
  return source === 'helmHistory'
    ? deployedChartVersion(status.history)
    : status.lastAppliedRevision;
}

/**
 * Chart version of the newest `deployed` history entry. Newest = highest `version` when every
 * deployed entry has one; otherwise the first in list order (helm-controller keeps newest first).
 */
function deployedChartVersion(history: unknown): unknown {
  if (!Array.isArray(history)) return undefined;
  const deployed = history.map(asFields).filter((e): e is Fields => e?.status === 'deployed');
  if (!deployed.every((e) => Number.isSafeInteger(e.version))) return deployed[0]?.chartVersion;
  // Ties keep the earlier entry, matching the list-order fallback.
  const newest = deployed.reduce<Fields | undefined>(
    (best, e) =>
      best === undefined || (e.version as number) > (best.version as number) ? e : best,
    undefined,
  );
  return newest?.chartVersion;
}

function asFields(value: unknown): Fields | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Fields)
    : undefined;
}
