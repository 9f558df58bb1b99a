/**
 * The order in which an environment takes revisions, and how long a claim holds it. Revisions are
 * ordered by when the previous environment was first verified running each one healthy (a
 * record's `upstreamVerifiedTime`): an automatic promotion only ever moves forward in that order,
 * so no environment receives an older revision from the gateway after a newer one. Pure: the
 * claim change (src/promote/claim.ts) and the evaluator read the stored status through these
 * same functions.
 */
import type {
  EnvironmentStatus,
  PromotionHistoryEntry,
  PromotionRecord,
} from '../pipeline/pipeline-resource.js';
import { parseTimestamp } from '../time/kube-time.js';
import type { TargetStatus } from './decisions.js';
import type { ReadStreak } from './healthy-since.js';
import { recordState } from './retry.js';
import { summarise } from './target-states.js';

/** A revision an environment took or may be taking, and its place in the order of revisions. */
export interface CommittedPromotion {
  revision: string;
  /** When the upstream was first verified running it healthy (ms). */
  upstreamVerifiedAt: number;
}

/**
 * The newest revision `env` shows succeeded or possibly delivered, by the order of revisions: its
 * record when Claimed, Succeeded (a pull request not closed unmerged) or Abandoned (a claim whose
 * fate is unknown), and every history entry that succeeded. Records and entries without an
 * `upstreamVerifiedTime` (written before the order was kept) do not count.
 */
export function committedPromotion(
  env: Pick<EnvironmentStatus, 'promotion' | 'history'> | undefined,
): CommittedPromotion | undefined {
  let newest: CommittedPromotion | undefined;
  const consider = (revision: string, time: string | undefined) => {
    const at = parseTimestamp(time);
    if (at !== undefined && (newest === undefined || at > newest.upstreamVerifiedAt)) {
      newest = { revision, upstreamVerifiedAt: at };
    }
  };
  const record = env?.promotion;
  if (record !== undefined && mayHaveArrived(record)) {
    consider(record.revision, record.upstreamVerifiedTime);
  }
  for (const entry of env?.history ?? []) {
    if (succeeded(entry)) consider(entry.revision, entry.upstreamVerifiedTime);
  }
  return newest;
}

/**
 * Whether promoting `revision`, first verified upstream at `upstreamVerifiedAt`, would go back
 * behind `committed`: another revision, first verified upstream later. Equal times are not
 * older (two revisions cannot be first verified at one instant in one environment).
 */
export function isOlderThan(
  committed: CommittedPromotion | undefined,
  revision: string,
  upstreamVerifiedAt: number | undefined,
): boolean {
  if (committed === undefined || upstreamVerifiedAt === undefined) return false;
  return committed.revision !== revision && upstreamVerifiedAt < committed.upstreamVerifiedAt;
}

function mayHaveArrived(record: PromotionRecord): boolean {
  const state = recordState(record);
  if (state === 'Claimed') return true;
  if (state === 'Failed') return record.resolution === 'Abandoned';
  return record.pullRequest?.state !== 'closed';
}

function succeeded(entry: PromotionHistoryEntry): boolean {
  return entry.succeededTime !== undefined;
}

/** One replica's reads of an environment's targets, aligned with its statuses. */
export interface EnvironmentRun {
  /** When each target was last read (ms); undefined = never. */
  readAt: readonly (number | undefined)[];
  /** Each target's run of healthy reads; undefined = none kept. */
  streaks: readonly (ReadStreak | undefined)[];
}

/**
 * When the environment was first verified running, every target Healthy, the one revision its
 * targets run now (ms): the earlier of its stored `verified` entry for that revision and the start
 * of this replica's run of healthy reads (the latest target's; a read without a run counts from
 * its own time, a target never read from `now`). Undefined unless every target is Healthy at
 * one revision.
 */
export function firstVerifiedOf(
  statuses: readonly TargetStatus[],
  verified: EnvironmentStatus['verified'],
  run: EnvironmentRun | undefined,
  now: number,
): number | undefined {
  const summary = summarise(statuses);
  if (summary.kind !== 'Ready') return undefined;
  const { revision } = summary;
  let ours = -Infinity;
  statuses.forEach((_, i) => {
    const streak = run?.streaks[i];
    const readAt = run?.readAt[i] ?? now;
    ours = Math.max(
      ours,
      streak?.healthyRevision === revision ? (streak.healthySince ?? readAt) : readAt,
    );
  });
  const stored = parseTimestamp(verified?.find((entry) => entry.revision === revision)?.time);
  return stored === undefined ? ours : Math.min(stored, ours);
}
