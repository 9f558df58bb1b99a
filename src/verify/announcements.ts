/**
 * Announced and unannounced changes. Flux delivers events best-effort: with no Alert for a
 * namespace, or a wrong key or address in the Provider, no event ever arrives and promotions
 * happen only at the resync. This module says what counts as a change an event would announce,
 * and what one replica knows of whether an event did. Pure.
 */
import type { TargetStatus } from '../evaluate/decisions.js';
import type { EnqueueResult, HintSource } from '../hints/sinks.js';

/**
 * One replica's word on a target's current state: `announced` when an event about the object
 * arrived here after the object was last seen in its previous state; `unannounced` when a
 * resync pass here found the state first, with no such event; undefined when it knows neither
 * (the Pipeline status then keeps what it says).
 */
export type Announcement = 'announced' | 'unannounced';

/**
 * Reasons of an object in the middle of a reconciliation. Flux announces how a reconciliation
 * ends (upgrade succeeded or failed), not that one started: a pass that catches one has found
 * nothing an event was due for yet, so the state it ends in is compared instead.
 */
const IN_PROGRESS: ReadonlySet<string> = new Set(['StaleGeneration', 'Reconciling', 'Progressing']);

/** Whether a read shows a state Flux announces: readable and not mid-reconciliation. */
export function isSettled(status: TargetStatus): boolean {
  if (status.health === 'Unknown') return false;
  return status.health === 'Healthy' || !IN_PROGRESS.has(status.reason);
}

/** Whether two settled states say the same to an event's reader: health and revision. */
function sameSettled(a: TargetStatus, b: TargetStatus): boolean {
  return a.health === b.health && a.revision === b.revision;
}

/** What one replica remembers of an object's observations, carried from read to read. */
export interface Observations {
  /** The last settled state read; undefined before the first. */
  settled?: TargetStatus | undefined;
  /** When a read last showed the object (in any state but Unknown, which shows nothing). */
  seenAt?: number | undefined;
  /** `seenAt` when `settled` last changed: events since then may be about that change. */
  since?: number | undefined;
  /** A detection pass found `settled` first, and no event about the object since `since`. */
  unannounced?: boolean | undefined;
}

/** What a read makes of the observations; `replaced` is the settled state it changed, if any. */
export interface Observed {
  observations: Observations;
  replaced?: TargetStatus | undefined;
}

/**
 * The observations after a read of `status` at `readAt`: an Unknown read changes nothing, an
 * in-progress one is an observation only, and a settled one that differs from the last in
 * health or revision starts a new settled state (not marked unannounced: only a pass marks).
 */
export function observe(
  previous: Observations | undefined,
  status: TargetStatus,
  readAt: number,
): Observed {
  const kept: Observations = {
    settled: previous?.settled,
    seenAt: previous?.seenAt,
    since: previous?.since,
    unannounced: previous?.unannounced,
  };
  if (status.health === 'Unknown') return { observations: kept };
  if (!isSettled(status)) return { observations: { ...kept, seenAt: readAt } };
  const before = previous?.settled;
  if (before !== undefined && sameSettled(before, status)) {
    return { observations: { ...kept, settled: status, seenAt: readAt } };
  }
  return {
    observations: { settled: status, seenAt: readAt, since: previous?.seenAt, unannounced: false },
    replaced: before,
  };
}

/**
 * This replica's word on the current state, given when an event about the object was last
 * accepted here (`eventAt`): an event after the previous state was last seen announces it.
 */
export function announcementOf(
  observations: Observations | undefined,
  eventAt: number | undefined,
): Announcement | undefined {
  const since = observations?.since;
  if (eventAt !== undefined && (since === undefined || eventAt >= since)) return 'announced';
  return observations?.unannounced === true ? 'unannounced' : undefined;
}

/**
 * Whether an offered hint announces its object: an accepted Flux event or legacy webhook call
 * (the latter names a whole Pipeline, so it counts for every target of it); our own
 * `stale-status` re-reads and refused offers do not.
 */
export function announces(source: HintSource, result: EnqueueResult): boolean {
  return source !== 'stale-status' && (result === 'queued' || result === 'coalesced');
}
