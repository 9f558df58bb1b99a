/**
 * Since when an environment has run a revision healthy, as a soak counts it (docs/policy.md,
 * "Soak time"). Two things know: the Pipeline status (`healthySince`, and each target record's
 * `observedTime`), shared by every replica and surviving restarts, and one replica's own reads
 * (`ReadStreak`, in memory), which may hold a break no status shows yet. The time kept is never
 * earlier than either allows, and a stored time is replaced only by a later read that broke
 * the run: so no replica, restart or stale view shortens a soak, and every break resets it. Pure.
 */
import type { HealthySince, TargetStatusRecord } from '../pipeline/pipeline-resource.js';
import { parseTimestamp, rfc3339Millis } from '../time/kube-time.js';
import type { TargetStatus } from './decisions.js';
import { summarise } from './target-states.js';

/**
 * One replica's reads of one target, as a soak counts them; in memory, lost on restart. Flat
 * (no nested object): one is kept per target, 60,000 at fleet scale.
 */
export interface ReadStreak {
  /** The revision the latest reads found Healthy (absent: the latest read was not). */
  healthyRevision?: string;
  /** The time of the first of those reads (present with healthyRevision). */
  healthySince?: number;
  /** The time of the latest read before that run which was not Healthy at its revision. */
  brokenAt?: number;
}

/**
 * The streak after one more read (`readAt`; `lastReadAt` is the time of the read before it). A
 * read that is not Healthy at a revision (Unhealthy, or Unknown: what could not be read cannot
 * count as healthy time) ends the run; a Healthy one at another revision starts a new run.
 */
export function advanceStreak(
  previous: ReadStreak | undefined,
  status: TargetStatus,
  readAt: number,
  lastReadAt: number | undefined,
): ReadStreak {
  const revision = status.revision;
  if (status.health !== 'Healthy' || revision === undefined || revision === '') {
    return { brokenAt: readAt };
  }
  if (previous?.healthyRevision === revision) return previous;
  const brokenAt =
    previous?.healthyRevision === undefined ? previous?.brokenAt : (lastReadAt ?? readAt);
  return {
    healthyRevision: revision,
    healthySince: readAt,
    ...(brokenAt === undefined ? {} : { brokenAt }),
  };
}

/** What one replica knows of one environment, each list aligned with the spec's targets. */
export interface EnvironmentReads {
  /** Its latest reads. */
  statuses: readonly TargetStatus[];
  /** When they were made (ms); undefined (never read) counts as `now`. */
  readAt: readonly (number | undefined)[];
  /** Its streaks; undefined (none kept) counts the latest read alone. */
  streaks: readonly (ReadStreak | undefined)[];
  /** The target records as stored in the Pipeline status. */
  records: readonly (TargetStatusRecord | undefined)[];
  /** `healthySince` as stored. */
  stored: HealthySince | undefined;
  /** Milliseconds since the epoch. */
  now: number;
}

/**
 * The environment's `healthySince` from `reads`: undefined when a read found it not healthy (a
 * target Unhealthy, revisions apart) or when a stored record newer than our read says otherwise
 * (we do not know); while some target is Unknown, the stored value unless a read of ours broke
 * the run after it; else the stored time while no read of ours broke the run after it (never an
 * earlier one, never a later one), or the time the run began after the last break: the latest
 * of the streaks' starts and of the records' observation times.
 */
export function healthySinceOf(reads: EnvironmentReads): HealthySince | undefined {
  const { statuses, stored } = reads;
  if (statuses.some((t) => t.health === 'Unhealthy')) return undefined;
  const summary = summarise(statuses);
  if (summary.kind === 'Unknown') return unbroken(reads) ? stored : undefined;
  if (summary.kind !== 'Ready') return undefined;
  const revision = summary.revision;
  const run = runOf(reads, revision);
  if (run === undefined) return undefined;
  const storedAt = stored?.revision === revision ? parseTimestamp(stored.time) : undefined;
  if (stored !== undefined && storedAt !== undefined && run.brokenAt < storedAt) {
    return run.floor <= storedAt ? stored : { revision, time: rfc3339Millis(run.floor) };
  }
  return { revision, time: rfc3339Millis(Math.max(run.start, run.floor)) };
}

/**
 * Whether the stored value stands while a target is Unknown: no read of ours broke the run after
 * it (an Unknown read does: what could not be read cannot count as healthy time). A target not
 * read yet, as after a restart, is no read and changes nothing.
 */
function unbroken(reads: EnvironmentReads): boolean {
  const storedAt = parseTimestamp(reads.stored?.time);
  if (storedAt === undefined) return false;
  return reads.streaks.every((streak) => (streak?.brokenAt ?? -Infinity) < storedAt);
}

interface Run {
  /** The latest start of a target's run in our reads. */
  start: number;
  /** The latest observation time the stored records allow (-Infinity: none). */
  floor: number;
  /** Our latest break (-Infinity: none seen). */
  brokenAt: number;
}

/** The run of healthy reads at `revision`, or undefined when a newer record contradicts a read. */
function runOf(reads: EnvironmentReads, revision: string): Run | undefined {
  let start = -Infinity;
  let floor = -Infinity;
  let brokenAt = -Infinity;
  for (let i = 0; i < reads.statuses.length; i++) {
    const readAt = reads.readAt[i] ?? reads.now;
    const streak = reads.streaks[i];
    const begun = streak?.healthyRevision === revision ? (streak.healthySince ?? readAt) : readAt;
    start = Math.max(start, begun);
    brokenAt = Math.max(brokenAt, streak?.brokenAt ?? -Infinity);
    const record = reads.records[i];
    const recordAt = parseTimestamp(record?.observedTime);
    if (record?.ready === true && record.revision === revision) {
      floor = Math.max(floor, recordAt ?? -Infinity);
    } else if (recordAt !== undefined && recordAt >= readAt) {
      return undefined;
    } else {
      // The status does not show this run yet: it is known from our read's time on.
      floor = Math.max(floor, readAt);
    }
  }
  return { start, floor, brokenAt };
}
