/**
 * Kubernetes time formats. metav1.Time is RFC 3339 with second precision; MicroTime (Leases)
 * has six fractional digits. Parsing accepts RFC 3339 only: Date.parse alone also takes
 * engine-specific formats.
 */

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
/** The range of a JavaScript Date, in ms either side of the epoch. */
const MAX_DATE_MS = 8.64e15;

/** metav1.Time for `ms` since the epoch: `2026-11-21T10:00:00Z` (sub-second part dropped). */
export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** RFC 3339 with milliseconds, `2026-11-21T10:00:00.123Z`: for ordering observations. */
export function rfc3339Millis(ms: number): string {
  return new Date(ms).toISOString();
}

/** MicroTime for `ms` since the epoch: `2026-11-21T10:00:00.000000Z`. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, '000Z');
}

/**
 * Milliseconds since the epoch of an RFC 3339 timestamp, or undefined when it is not one, or is
 * on a date the calendar does not have (`2099-02-30`), at hour 24, a leap second or offset 24:00.
 */
export function parseTimestamp(value: unknown): number | undefined {
  // Date.parse would roll `2099-02-30` over to 2 March, a time nobody wrote; no clock the
  // gateway reads shows a leap second (`:60`).
  if (typeof value !== 'string') return undefined;
  const m = RFC3339.exec(value);
  if (m === null || !exists(m)) return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
}

/**
 * Whether the year, month, day, hour, minute, second and the offset's hours and minutes of a
 * match exist. Read group by group: every event's timestamp passes here, so nothing is copied.
 */
function exists(m: RegExpExecArray): boolean {
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(Number(m[1]), month)) return false;
  if (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6]) > 59) return false;
  // The offset groups of a `Z` time are not matched (undefined): no offset to check.
  return Number(m[7] ?? 0) <= 23 && Number(m[8] ?? 0) <= 59;
}

/** What isRfc3339 asks of a date-time, in words, after the field's name. */
export const RFC3339_RULE =
  'must be an RFC 3339 date-time on a calendar date that exists, e.g. 2026-11-26T08:00:00Z';

/**
 * Whether `value` is an RFC 3339 date-time the gateway can use (parseTimestamp's rules): the one
 * check of every door, the JSON schemas' `date-time` format and signed statements alike.
 */
export function isRfc3339(value: unknown): boolean {
  return parseTimestamp(value) !== undefined;
}

function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : (MONTH_DAYS[month - 1] ?? 0);
}

/** ISO text for a time in ms, or the raw number when it is outside Date's range. */
export function formatTime(ms: number): string {
  return Number.isFinite(ms) && Math.abs(ms) <= MAX_DATE_MS
    ? new Date(ms).toISOString()
    : `${ms} ms`;
}
