/**
 * Lead time and frequency of one Pipeline, the figures a platform team reports (DORA's lead time
 * for changes, deployment frequency and change failure rate, per Pipeline): for each revision,
 * when it was first verified in the first environment and in each later one (status
 * `verified`), and promotions per week with the share that failed (status `history`). Both
 * records are bounded (20 entries per environment), so these cover the latest revisions and
 * promotions only. Pure.
 */
import type { Pipeline } from '../pipeline/pipeline-resource.js';
import { parseTimestamp } from '../time/kube-time.js';

/** One revision's way through the environments. */
export interface RevisionLead {
  revision: string;
  /** When it was first verified in each environment (spec order); undefined = not (yet). */
  verifiedAt: (number | undefined)[];
}

/** Every revision first verified in the first environment, oldest first. */
export interface LeadTimes {
  environments: string[];
  revisions: RevisionLead[];
}

const WEEK_MS = 7 * 24 * 3_600_000;
/** 1970-01-01 was a Thursday: weeks start on Monday, 00:00 UTC. */
const MONDAY_OFFSET_MS = 4 * 24 * 3_600_000;

/** The revisions the first environment verified, and when each later environment did. */
export function leadTimes(pipeline: Pipeline): LeadTimes {
  const environments = pipeline.spec.environments.map((e) => e.name);
  const stored = pipeline.status?.environments ?? {};
  const timesOf = (env: string) =>
    new Map((stored[env]?.verified ?? []).map((v) => [v.revision, parseTimestamp(v.time)]));
  const perEnv = environments.map(timesOf);
  const first = perEnv[0] ?? new Map<string, number | undefined>();
  const revisions = [...first.entries()]
    .filter((entry): entry is [string, number] => entry[1] !== undefined)
    .sort((a, b) => a[1] - b[1])
    .map(([revision]) => ({ revision, verifiedAt: perEnv.map((times) => times.get(revision)) }));
  return { environments, revisions };
}

/** How long after the first environment the revision was verified in environment `index`. */
export function leadMs(lead: RevisionLead, index: number): number | undefined {
  const start = lead.verifiedAt[0];
  const at = lead.verifiedAt[index];
  return start === undefined || at === undefined ? undefined : Math.max(0, at - start);
}

/** Promotions started in one week (Monday 00:00 UTC) and how many of them had a failed attempt. */
export interface WeekCount {
  /** The week's start, ms since the epoch. */
  start: number;
  promotions: number;
  failed: number;
}

/** The start of the week `ms` falls in. */
export function weekStart(ms: number): number {
  return Math.floor((ms - MONDAY_OFFSET_MS) / WEEK_MS) * WEEK_MS + MONDAY_OFFSET_MS;
}

/**
 * The last `weeks` weeks up to `now`, oldest first: promotions (history entries of every
 * environment) by the week their first attempt started, and those with a failed attempt.
 */
export function promotionsPerWeek(pipeline: Pipeline, now: number, weeks = 12): WeekCount[] {
  const last = weekStart(now);
  const buckets = Array.from({ length: weeks }, (_, i) => ({
    start: last - (weeks - 1 - i) * WEEK_MS,
    promotions: 0,
    failed: 0,
  }));
  const first = last - (weeks - 1) * WEEK_MS;
  for (const env of Object.values(pipeline.status?.environments ?? {})) {
    for (const entry of env.history ?? []) {
      const started = parseTimestamp(entry.startedTime);
      if (started === undefined) continue;
      const bucket = buckets[Math.round((weekStart(started) - first) / WEEK_MS)];
      if (bucket === undefined) continue;
      bucket.promotions += 1;
      if (entry.failedTime !== undefined) bucket.failed += 1;
    }
  }
  return buckets;
}

/** Totals over some weeks: promotions, failed ones and their share (0..1; 0 when none). */
export function totalsOf(weeks: readonly WeekCount[]): {
  promotions: number;
  failed: number;
  failedShare: number;
} {
  const promotions = weeks.reduce((sum, w) => sum + w.promotions, 0);
  const failed = weeks.reduce((sum, w) => sum + w.failed, 0);
  return { promotions, failed, failedShare: promotions === 0 ? 0 : failed / promotions };
}

/** A duration for people: `45s`, `12m`, `3h 5m`, `2d 4h`. */
export function humanDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${String(s)}s`;
  const m = Math.round(s / 60);
  if (m < 60) return `${String(m)}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return m % 60 === 0 ? `${String(h)}h` : `${String(h)}h ${String(m % 60)}m`;
  const d = Math.floor(h / 24);
  return h % 24 === 0 ? `${String(d)}d` : `${String(d)}d ${String(h % 24)}h`;
}
