/**
 * The promotion history of one environment (status.environments[env].history): one entry per
 * revision, updated by every change of the promotion record it summarizes and written in the
 * same status write, so a record a newer claim overwrites is still told by its entry.
 * Notifications (src/notify) derive their promotion events from it. Pure.
 */
import type {
  EnvironmentStatus,
  PromotionHistoryEntry,
  PromotionRecord,
} from '../pipeline/pipeline-resource.js';
import { parseTimestamp, rfc3339Millis } from '../time/kube-time.js';
import { truncate } from '../text/text.js';

/** The most entries an environment keeps (the CRD's maxItems), oldest dropped first. */
export const MAX_HISTORY = 20;

const MAX_FAILURE = 256;

/**
 * The history after `record` was stored at `at` (ms): a claim of a new revision appends an
 * entry (its start the claim's time), a later attempt raises `attempts`, the first failure and
 * the success stamp their times. A record that changes nothing the history tells (a pull
 * request's state) leaves it as it is, so the same record stored twice writes nothing new.
 */
export function historyAfter(
  history: readonly PromotionHistoryEntry[] | undefined,
  record: PromotionRecord,
  at: number,
): PromotionHistoryEntry[] {
  const entries = [...(history ?? [])];
  const last = entries.at(-1);
  // A rollback to the revision of the latest entry, or a promotion after a rollback to it, is a
  // new entry: each tells its own start and end.
  const same =
    last?.revision === record.revision &&
    (last.rollback === undefined) === (record.rollback === undefined);
  const current: PromotionHistoryEntry = same
    ? last
    : {
        revision: record.revision,
        startedTime: startOf(record, at),
        attempts: record.attempt ?? 1,
        ...(record.rollback === undefined ? {} : { rollback: record.rollback }),
      };
  const next = stamped(current, record, at);
  if (same) entries[entries.length - 1] = next;
  else entries.push(next);
  return entries.slice(-MAX_HISTORY);
}

/** `env` with `record` stored at `at` and its history updated. */
export function withRecorded(
  env: EnvironmentStatus | undefined,
  record: PromotionRecord,
  at: number,
): EnvironmentStatus {
  return { ...env, promotion: record, history: historyAfter(env?.history, record, at) };
}

/** The claim's own time in ms (the record keeps whole seconds), else the record's. */
function startOf(record: PromotionRecord, at: number): string {
  if (record.phase === 'Claimed') return rfc3339Millis(at);
  return rfc3339Millis(parseTimestamp(record.lastAttemptedTime) ?? at);
}

function stamped(
  entry: PromotionHistoryEntry,
  record: PromotionRecord,
  at: number,
): PromotionHistoryEntry {
  const attempts = Math.max(entry.attempts, record.attempt ?? 1);
  const next: PromotionHistoryEntry = { ...entry, attempts };
  // The revision's place in the order of revisions (evaluate/promotion-order.ts), kept past the
  // record that carried it.
  if (next.upstreamVerifiedTime === undefined && record.upstreamVerifiedTime !== undefined) {
    next.upstreamVerifiedTime = record.upstreamVerifiedTime;
  }
  // What shadow gates would have held, as the claim found it: told by a ShadowHold event.
  if (next.wouldHold === undefined && record.wouldHold !== undefined) {
    next.wouldHold = record.wouldHold.map((h) => ({ ...h }));
  }
  if (record.phase === 'Failed' && next.failedTime === undefined) {
    next.failedTime = rfc3339Millis(at);
    if (record.message !== undefined) next.failure = truncate(record.message, MAX_FAILURE);
  }
  if (isSuccess(record) && next.succeededTime === undefined) {
    next.succeededTime = rfc3339Millis(at);
  }
  return next;
}

function isSuccess(record: PromotionRecord): boolean {
  // An open pull request is Succeeded in weave's terms but not yet promoted: its merge is.
  if (record.pullRequest !== undefined && record.pullRequest.state !== 'merged') return false;
  return record.phase === 'Succeeded';
}
