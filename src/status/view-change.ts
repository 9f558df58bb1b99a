/**
 * The verified view as a status change: the targets' records, `waitingApproval`, the conditions
 * and observedGeneration, computed from this replica's reads and applied to whatever is stored.
 * Promotion records and authorizations are never touched (their writers own them), and a
 * replica never writes an older truth over a newer one: every target record carries the time
 * of the read it shows (`observedTime`), and a view whose read of a target is older than the
 * stored record's, while saying something else, is not written. A record whose state a resync
 * pass found with no event about it is marked `unannounced` until an event about it arrives, at
 * either replica; the EventsMissing condition is computed from the marks as written. An
 * environment a downstream soak waits on keeps `healthySince` (evaluate/healthy-since.ts), which
 * a replica moves only forward after a break its reads saw, never back. Each environment keeps
 * when each revision was first verified there (`verified`, status/verified-history.ts), whose
 * times only move earlier. Pure.
 */
import type { Evaluation, TargetStatus } from '../evaluate/decisions.js';
import { healthySinceOf, type ReadStreak } from '../evaluate/healthy-since.js';
import { soakedUpstreams } from '../evaluate/soak.js';
import type { StatusChange } from '../kube/status-writer.js';
import type { Announcement } from '../verify/announcements.js';
import { jsonEqual } from '../json/json-equal.js';
import { parseTimestamp, rfc3339Millis } from '../time/kube-time.js';
import type {
  Condition,
  EnvironmentStatus,
  Pipeline,
  PipelineStatus,
  TargetStatusRecord,
} from '../pipeline/pipeline-resource.js';
import { computeStatus, eventsMissingCondition } from './compute-status.js';
import { verifiedAfter, type VerifiedRecord } from './verified-history.js';
import { driftedCondition } from './drift-condition.js';
import type { WaitPreview } from './wait-previews.js';

/** What one view is computed from: the Pipeline as checked, its reads and their evaluation. */
export interface ViewInputs {
  pipeline: Pipeline;
  /** Verified state per environment, aligned with the spec's targets. */
  targets: Record<string, TargetStatus[]>;
  /** When each of those was read (ms since the epoch); undefined = never read. */
  observedAt: Record<string, (number | undefined)[]>;
  /** This replica's word on whether each state was announced by an event, aligned likewise. */
  announcements?: Record<string, (Announcement | undefined)[]>;
  /** This replica's runs of healthy reads, aligned likewise: what a soak counts. */
  streaks?: Record<string, (ReadStreak | undefined)[]>;
  evaluation: Evaluation;
}

/** One target by its place in the spec. */
export interface TargetPlace {
  environment: string;
  index: number;
}

/**
 * Current: the view is (now) what is stored. Stale: the stored records of these targets are
 * newer than this replica's reads and say otherwise; read them again. Outdated: the stored spec
 * moved on; the watch brings it and a check follows.
 */
export type ViewVerdict =
  { kind: 'Current' } | { kind: 'Stale'; targets: TargetPlace[] } | { kind: 'Outdated' };

/** What the change needs besides the inputs. */
export interface ViewChangeOptions {
  /** Milliseconds since the epoch, for condition transitions. */
  now: number;
  /** The evaluation on the stored records, when they differ from the ones checked (pure). */
  reevaluate: (stored: Pipeline, targets: Record<string, TargetStatus[]>) => Evaluation;
  /** Previews of the pending changes waits begin with, by environment (wait-previews.ts). */
  previews?: Readonly<Record<string, WaitPreview & { revision: string }>>;
}

/** The view of `inputs` as a change of the stored status; see the module comment. */
export function viewChange(
  inputs: ViewInputs,
  options: ViewChangeOptions,
): StatusChange<ViewVerdict> {
  return (stored) => {
    if (stored.metadata.generation !== inputs.pipeline.metadata.generation) {
      return { keep: { kind: 'Outdated' } };
    }
    // Records written since the check (a claim, an outcome, an approval) are part of the truth
    // too: decide on them rather than publish a decision they have overtaken.
    const evaluation = sameRecords(inputs.pipeline, stored)
      ? inputs.evaluation
      : options.reevaluate(stored, inputs.targets);
    const computed = computeStatus({
      pipeline: stored,
      targets: inputs.targets,
      evaluation,
      now: options.now,
    });
    const stale: TargetPlace[] = [];
    const environments: Record<string, EnvironmentStatus> = {};
    const soaked = soakedUpstreams(stored.spec);
    for (const [name, env] of Object.entries(computed.environments ?? {})) {
      const kept = stored.status?.environments?.[name];
      const targets = (env.targets ?? []).map((record, index) => {
        const merged = mergeTarget(
          record,
          kept?.targets?.[index],
          inputs.observedAt[name]?.[index],
          inputs.announcements?.[name]?.[index],
        );
        if (merged === 'stale') stale.push({ environment: name, index });
        return merged === 'stale' ? record : merged;
      });
      const since = soaked.has(name) ? healthySince(inputs, name, kept, options.now) : undefined;
      const waiting = waitingSince(
        env.waitingApproval,
        kept?.waitingApproval,
        options.now,
        options.previews?.[name],
      );
      const verified = verifiedAfter(kept?.verified, targets);
      const drift = driftSince(env.drift, kept?.drift, options.now);
      environments[name] = withView(kept, targets, { waiting, since, verified, drift });
    }
    if (stale.length > 0) return { keep: { kind: 'Stale', targets: stale } };
    const kept = [
      eventsMissingCondition(stored, environments, options.now),
      driftedCondition(stored, environments, options.now),
    ].filter((c): c is Condition => c !== undefined);
    return {
      write: nextStatus(stored.status, computed, environments, kept),
      verdict: { kind: 'Current' },
    };
  };
}

/** Whether both hold the same promotion records and authorizations in every environment. */
function sameRecords(a: Pipeline, b: Pipeline): boolean {
  const names = new Set([
    ...Object.keys(a.status?.environments ?? {}),
    ...Object.keys(b.status?.environments ?? {}),
  ]);
  for (const name of names) {
    const x = a.status?.environments?.[name];
    const y = b.status?.environments?.[name];
    if (!jsonEqual(x?.promotion, y?.promotion) || !jsonEqual(x?.approvals, y?.approvals)) {
      return false;
    }
  }
  return true;
}

/**
 * The record to store for one target: the stored one while it says the same (its observation
 * time and mark too, so repeated reads write nothing), except that our word `announced` clears
 * its `unannounced` mark; ours, stamped with our read's time and marked when our word is
 * `unannounced`, when ours is newer; 'stale' when the stored record is newer than our read and
 * says something else.
 */
export function mergeTarget(
  ours: TargetStatusRecord,
  stored: TargetStatusRecord | undefined,
  readAt: number | undefined,
  announcement?: Announcement,
): TargetStatusRecord | 'stale' {
  if (stored !== undefined && sameObservation(stored, ours)) {
    if (stored.unannounced !== true || announcement !== 'announced') return stored;
    const { unannounced: _mark, ...announced } = stored;
    return announced;
  }
  const storedAt = parseTimestamp(stored?.observedTime);
  if (storedAt !== undefined && (readAt === undefined || readAt <= storedAt)) return 'stale';
  const record = readAt === undefined ? ours : { ...ours, observedTime: rfc3339Millis(readAt) };
  return announcement === 'unannounced' ? { ...record, unannounced: true } : record;
}

/**
 * Whether a stored record shows the state of `ours` (a record without observation time or
 * mark): the same state, whenever and however it was first observed.
 */
export function sameObservation(stored: TargetStatusRecord, ours: TargetStatusRecord): boolean {
  return jsonEqual({ ...stored, observedTime: undefined, unannounced: undefined }, ours);
}

/**
 * The environment's `healthySince` for a downstream soak (evaluate/healthy-since.ts): applied to
 * what is stored now, so a stored time is kept unless this replica's reads broke the run since.
 */
function healthySince(
  inputs: ViewInputs,
  name: string,
  kept: EnvironmentStatus | undefined,
  now: number,
): EnvironmentStatus['healthySince'] {
  return healthySinceOf({
    statuses: inputs.targets[name] ?? [],
    readAt: inputs.observedAt[name] ?? [],
    streaks: inputs.streaks?.[name] ?? [],
    records: kept?.targets ?? [],
    stored: kept?.healthySince,
    now,
  });
}

/**
 * The view's waitingApproval, with `since` kept from the stored one while it waits for the same
 * revision (so a view that finds the same wait writes nothing) and stamped `now` when it begins.
 * Its preview is the one first recorded for the revision (what the wait's event told), else
 * the one this view was given for it, else none.
 */
function waitingSince(
  computed: EnvironmentStatus['waitingApproval'],
  stored: EnvironmentStatus['waitingApproval'],
  now: number,
  given: (WaitPreview & { revision: string }) | undefined,
): EnvironmentStatus['waitingApproval'] {
  if (computed === undefined) return undefined;
  const same = stored?.revision === computed.revision;
  const since = same && stored.since !== undefined ? stored.since : rfc3339Millis(now);
  const preview =
    (same ? stored.preview : undefined) ??
    (given?.revision === computed.revision
      ? { digest: given.digest, summary: given.summary }
      : undefined);
  return { revision: computed.revision, since, ...(preview === undefined ? {} : { preview }) };
}

/**
 * The view's drift record, with `since` kept from the stored one while it tells the same drift
 * (so a view that finds it again writes nothing) and stamped `now` when it begins.
 */
function driftSince(
  computed: EnvironmentStatus['drift'],
  stored: EnvironmentStatus['drift'],
  now: number,
): EnvironmentStatus['drift'] {
  if (computed === undefined) return undefined;
  const same =
    stored?.promoted === computed.promoted &&
    stored.arrived === computed.arrived &&
    jsonEqual(stored.running, computed.running);
  return { ...computed, since: same ? stored.since : rfc3339Millis(now) };
}

/** The view's own fields of one environment besides its targets. */
interface ViewFields {
  waiting: EnvironmentStatus['waitingApproval'];
  since: EnvironmentStatus['healthySince'];
  verified: readonly VerifiedRecord[] | undefined;
  drift: EnvironmentStatus['drift'];
}

/** The stored environment with the view's own fields replaced and everything else kept. */
function withView(
  kept: EnvironmentStatus | undefined,
  targets: TargetStatusRecord[],
  { waiting, since, verified, drift }: ViewFields,
): EnvironmentStatus {
  const {
    targets: _t,
    waitingApproval: _w,
    healthySince: _h,
    verified: _v,
    drift: _d,
    ...others
  } = kept ?? {};
  return {
    ...others,
    targets,
    ...(waiting === undefined ? {} : { waitingApproval: waiting }),
    ...(since === undefined ? {} : { healthySince: since }),
    ...(verified === undefined ? {} : { verified: [...verified] }),
    ...(drift === undefined ? {} : { drift }),
  };
}

function nextStatus(
  stored: PipelineStatus | undefined,
  computed: PipelineStatus,
  environments: Record<string, EnvironmentStatus>,
  derived: readonly Condition[],
): PipelineStatus {
  const conditions = [...(computed.conditions ?? []), ...derived];
  return {
    ...stored,
    ...(computed.observedGeneration === undefined
      ? {}
      : { observedGeneration: computed.observedGeneration }),
    conditions,
    environments,
  };
}
