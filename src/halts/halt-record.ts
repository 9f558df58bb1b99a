/**
 * Recording and lifting stop-the-line halts in status.halts, as changes handed to the one status
 * writer (resourceVersion precondition, re-applied on a conflict), so every replica sees a halt
 * from its next evaluation and a restart loses none. Expired halts hold nothing any more
 * (src/evaluate/halts-gate.ts). A halt's credential id (`jti`) is single-use in the Pipeline: a
 * lifted or expired halt whose credential has not expired stays (a lifted one as a tombstone,
 * `liftedAt`), so a replay of that credential is refused; every write prunes the rest.
 */
import { haltEnd } from '../evaluate/halts-gate.js';
import type { StatusChange } from '../kube/status-writer.js';
import type { HaltRecord, Pipeline, PipelineStatus } from '../pipeline/pipeline-resource.js';
import { parseTimestamp, rfc3339 } from '../time/kube-time.js';

/** The most halts one Pipeline holds in force. */
export const MAX_HALTS = 64;
/** The most records status.halts keeps, tombstones included (the CRD's maxItems). */
export const MAX_HALT_RECORDS = 128;

/** Whether the halt holds at `now` (not lifted, not expired). */
export function inForce(halt: HaltRecord, now: number): boolean {
  return haltEnd(halt) > now;
}

/** The halts still in force at `now` (any environment). */
export function liveHalts(halts: readonly HaltRecord[] | undefined, now: number): HaltRecord[] {
  return (halts ?? []).filter((h) => inForce(h, now));
}

/** Until when a record must stay to refuse its credential again (ms); -Infinity without one. */
function credentialEnd(halt: HaltRecord): number {
  if (halt.jti === undefined) return -Infinity;
  return parseTimestamp(halt.credentialExpiresAt) ?? -Infinity;
}

/** The records to keep at `now`: halts in force, and any whose credential is still valid. */
export function keptHalts(halts: readonly HaltRecord[] | undefined, now: number): HaltRecord[] {
  return (halts ?? []).filter((h) => inForce(h, now) || credentialEnd(h) > now);
}

function withHalts(status: PipelineStatus | undefined, halts: HaltRecord[]): PipelineStatus {
  const { halts: _old, ...rest } = status ?? {};
  return halts.length === 0 ? rest : { ...rest, halts };
}

/**
 * Recorded: the halt was added. Duplicate: a halt with its id (and credential) is in force
 * already, so a retry changes nothing. Replayed: its credential id is recorded on another
 * halt, or on this one after it was lifted or expired. Full: MAX_HALTS halts are in force, or
 * MAX_HALT_RECORDS records are kept. Stale: the Pipeline no longer has the halted environment.
 */
export type HaltVerdict = 'Recorded' | 'Duplicate' | 'Replayed' | 'Full' | 'Stale';

/** Whether `halt` repeats (Duplicate) or replays (Replayed) a kept record; undefined if new. */
function repeatOf(
  kept: readonly HaltRecord[],
  halt: HaltRecord,
  now: number,
): 'Duplicate' | 'Replayed' | undefined {
  const used = halt.jti === undefined ? undefined : kept.find((h) => h.jti === halt.jti);
  if (used !== undefined && (used.id !== halt.id || !inForce(used, now))) return 'Replayed';
  const same = kept.find((h) => h.id === halt.id);
  if (same === undefined) return undefined;
  return inForce(same, now) ? 'Duplicate' : 'Replayed';
}

/** Whether `halt` would be refused as a replay by the Pipeline's stored halts at `now`. */
export function replayedIn(pipeline: Pipeline, halt: HaltRecord, now: number): boolean {
  return repeatOf(keptHalts(pipeline.status?.halts, now), halt, now) === 'Replayed';
}

/**
 * Adding `halt` (stale records pruned), re-applied to whatever is stored after a conflict: a
 * repeat or replay is answered first, then `stillValid` (pure) must hold on the stored
 * Pipeline (its environment still exists), then the bounds.
 */
export function haltChange(
  halt: HaltRecord,
  now: number,
  stillValid: (stored: Pipeline) => boolean,
): StatusChange<HaltVerdict> {
  return (stored) => {
    const kept = keptHalts(stored.status?.halts, now);
    const repeat = repeatOf(kept, halt, now);
    if (repeat !== undefined) return { keep: repeat };
    if (!stillValid(stored)) return { keep: 'Stale' };
    const live = kept.filter((h) => inForce(h, now));
    if (live.length >= MAX_HALTS || kept.length >= MAX_HALT_RECORDS) return { keep: 'Full' };
    return { write: withHalts(stored.status, [...kept, halt]), verdict: 'Recorded' };
  };
}

/** Lifted: the halt was lifted (`lifted` is it, as it held). Absent: no halt in force has that id. */
export type LiftVerdict = { outcome: 'Lifted'; lifted: HaltRecord } | { outcome: 'Absent' };

/**
 * Lifting the halt `id` by `by` (stale records pruned too): it becomes a tombstone while its
 * credential is valid, else it is removed. `mayLift` (pure) judges the stored halt, so a halt
 * replaced under the same id by a conflict is judged again.
 */
export function liftChange(
  id: string,
  now: number,
  mayLift: (halt: HaltRecord) => boolean,
  by: string,
): StatusChange<LiftVerdict | { outcome: 'Forbidden' }> {
  return (stored) => {
    const kept = keptHalts(stored.status?.halts, now);
    const lifted = kept.find((h) => h.id === id && inForce(h, now));
    if (lifted === undefined) return { keep: { outcome: 'Absent' } };
    if (!mayLift(lifted)) return { keep: { outcome: 'Forbidden' } };
    const tombstone = { ...lifted, liftedAt: rfc3339(now), liftedBy: by };
    const next = kept.flatMap((h) => {
      if (h !== lifted) return [h];
      return credentialEnd(h) > now ? [tombstone] : [];
    });
    return { write: withHalts(stored.status, next), verdict: { outcome: 'Lifted', lifted } };
  };
}

/**
 * Halts in force at `now` across `haltLists` (each a Pipeline's status.halts), by scope: one
 * environment, or a whole Pipeline.
 */
export function haltsByScope(
  haltLists: Iterable<readonly HaltRecord[] | undefined>,
  now: number,
): { environment: number; pipeline: number } {
  const counts = { environment: 0, pipeline: 0 };
  for (const halts of haltLists)
    for (const h of liveHalts(halts, now))
      counts[h.environment === undefined ? 'pipeline' : 'environment']++;
  return counts;
}
