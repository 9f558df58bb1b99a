/**
 * One halt or lift on one Pipeline, shared by the doors of one Pipeline (halter.ts) and of many
 * (fleet-halter.ts): the record built from the caller and the request, the status change through
 * the one writer, and, once written, an info log line, an Event on the Pipeline and a re-check.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { PipelineWriter } from '../kube/ports.js';
import { StatusWritesHeld, type StatusWriter } from '../kube/status-writer.js';
import type { GatewayLogger } from '../log.js';
import { pipelineIdOf, type PipelineId } from '../pipeline/id.js';
import type { HaltRecord, Pipeline } from '../pipeline/pipeline-resource.js';
import { recordedJti } from '../text/bounded-id.js';
import { jsonEqual } from '../json/json-equal.js';
import { rfc3339 } from '../time/kube-time.js';
import { hasEnvironment, type HaltCaller } from './halt-access.js';
import { haltEvent } from './halt-events.js';
import { haltChange, inForce, liftChange } from './halt-record.js';

/** What one halt or lift needs. */
export interface HaltWriteDeps {
  status: Pick<StatusWriter, 'apply' | 'read'>;
  events: Pick<PipelineWriter, 'emitEvent'>;
  logger: GatewayLogger;
  recheck: (id: PipelineId) => void;
  /** Told when a halt was written but not kept (the installed CRD pruned it): check the CRD. */
  onUnkept?: () => void;
}

/** What a halt asks for (the validated body, or a verified statement's claims). */
export interface HaltRequest {
  environment?: string;
  reason: string;
  expiresAt?: string;
}

/**
 * The record `caller` asks for at `now` (ms). With a credential id the halt's id is derived
 * from it and from `scope` (the Pipeline, or the selector), so a retry of the same call names
 * the same halt on every Pipeline (Duplicate) and a replay after a lift is recognised.
 */
export function haltRecordOf(
  caller: HaltCaller,
  request: HaltRequest & { selector?: string },
  scope: string,
  times: { now: number; expiresAt: number | undefined },
): HaltRecord {
  const { principal } = caller;
  const { environment, selector } = request;
  return {
    id: haltIdOf(caller, scope, environment),
    ...(environment === undefined ? {} : { environment }),
    principal: principal.name,
    kind: principal.kind,
    reason: request.reason,
    time: rfc3339(times.now),
    ...(times.expiresAt === undefined ? {} : { expiresAt: rfc3339(times.expiresAt) }),
    ...(selector === undefined ? {} : { selector }),
    ...(principal.jti === undefined ? {} : { jti: recordedJti(principal.jti) }),
    ...(principal.expiresAt === undefined
      ? {}
      : { credentialExpiresAt: rfc3339(Math.ceil(principal.expiresAt / 1000) * 1000) }),
    ...(caller.statement === undefined ? {} : { statement: caller.statement }),
  };
}

/** A UUID-shaped id: from the credential id when there is one, else random. */
function haltIdOf(caller: HaltCaller, scope: string, environment: string | undefined): string {
  const { principal } = caller;
  if (principal.jti === undefined) return randomUUID();
  const hex = createHash('sha256')
    .update([principal.kind, principal.name, principal.jti, scope, environment ?? '*'].join('\n'))
    .digest('hex');
  return [
    hex.slice(0, 8),
    hex.slice(8, 12),
    hex.slice(12, 16),
    hex.slice(16, 20),
    hex.slice(20, 32),
  ].join('-');
}

/** What became of one halt on one Pipeline; `halt` is the record it holds (or would have). */
export interface HaltWrite {
  outcome: 'Recorded' | 'Duplicate' | 'Replayed' | 'Full' | 'Stale' | 'Gone' | 'Contended';
  halt: HaltRecord;
}

/** Records `halt` on `pipeline` (as last seen) at `now` through the one writer; announces it when new. */
export async function writeHalt(
  deps: HaltWriteDeps,
  pipeline: Pipeline,
  halt: HaltRecord,
  now: number,
): Promise<HaltWrite> {
  const change = haltChange(halt, now, (stored) => hasEnvironment(stored, halt.environment));
  // The API server's own answer: a halt answered as recorded must be in force.
  const result = await deps.status.apply(pipeline, change, 'stored');
  if (result.outcome === 'Gone' || result.outcome === 'Contended')
    return { outcome: result.outcome, halt };
  const { verdict } = result;
  if (verdict === 'Duplicate') {
    const stored = result.pipeline.status?.halts?.find((h) => h.id === halt.id);
    return { outcome: verdict, halt: stored ?? halt };
  }
  if (result.outcome === 'Kept')
    return { outcome: verdict === 'Recorded' ? 'Contended' : verdict, halt };
  const kept = result.pipeline.status?.halts?.find((h) => h.id === halt.id);
  if (!jsonEqual(kept, halt)) {
    // Not in force: the caller must not be told otherwise (answered 503 StatusHeld).
    deps.onUnkept?.();
    throw new StatusWritesHeld(['status.halts']);
  }
  await announce(deps, result.pipeline, halt, 'recorded', halt.principal);
  return { outcome: 'Recorded', halt };
}

/** What became of one lift on one Pipeline; `halt` is the halt as it held. */
export type LiftWrite =
  | { outcome: 'Lifted'; halt: HaltRecord }
  | { outcome: 'Absent' | 'Forbidden' | 'Gone' | 'Contended' };

/**
 * Lifts the halt `id` of `pipeline` (as read) for `by` at `now` through the one writer;
 * `mayLift` judges the stored halt again after a conflict. Announces the lift.
 */
export async function writeLift(
  deps: HaltWriteDeps,
  pipeline: Pipeline,
  lift: { id: string; by: string; now: number },
  mayLift: (halt: HaltRecord) => boolean,
): Promise<LiftWrite> {
  const result = await deps.status.apply(pipeline, liftChange(lift.id, lift.now, mayLift, lift.by));
  if (result.outcome === 'Gone' || result.outcome === 'Contended')
    return { outcome: result.outcome };
  const { verdict } = result;
  if (result.outcome === 'Kept' || verdict.outcome !== 'Lifted')
    return { outcome: verdict.outcome === 'Lifted' ? 'Contended' : verdict.outcome };
  await announce(deps, result.pipeline, verdict.lifted, 'lifted', lift.by);
  return { outcome: 'Lifted', halt: verdict.lifted };
}

/** The halt in force with `id` in the stored Pipeline, if any. */
export function haltInForce(pipeline: Pipeline, id: string, now: number): HaltRecord | undefined {
  return pipeline.status?.halts?.find((h) => h.id === id && inForce(h, now));
}

/**
 * One Event on the Pipeline, a re-check and a log line per halt or lift: info for one
 * Pipeline's halt, debug for a halt across Pipelines (its call logs one info line for all of
 * them, see FleetHalter: a fleet-wide halt would otherwise log a line per Pipeline).
 */
async function announce(
  deps: HaltWriteDeps,
  pipeline: Pipeline,
  halt: HaltRecord,
  action: 'recorded' | 'lifted',
  by: string,
): Promise<void> {
  const id = pipelineIdOf(pipeline);
  const fields = { pipeline: id, haltId: halt.id, environment: halt.environment, by };
  const extra = { expiresAt: halt.expiresAt, selector: halt.selector };
  const level = halt.selector === undefined ? 'info' : 'debug';
  deps.logger[level]({ ...fields, ...extra }, `halt ${action}`);
  try {
    await deps.events.emitEvent(haltEvent(pipeline, halt, action, by));
  } catch {
    // The status is the record; a lost Event costs the audit trail nothing.
    deps.logger.warn({ pipeline: id }, 'halt event not recorded');
  }
  deps.recheck(id);
}
