/**
 * Kubernetes time formats. metav1.Time is RFC 3339 with second precision; MicroTime (Leases)
 * has six fractional digits. Parsing accepts RFC 3339 only: Date.parse alone also takes
 * engine-specific formats.
 */

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
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

/** Milliseconds since the epoch of an RFC 3339 timestamp, or undefined when it is not one. */
export function parseTimestamp(value: unknown): number | undefined {
  if (typeof value !== 'string' || !RFC3339.test(value)) return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
}

/** ISO text for a time in ms, or the raw number when it is outside Date's range. */
export function formatTime(ms: number): string {
  return Number.isFinite(ms) && Math.abs(ms) <= MAX_DATE_MS
    ? new Date(ms).toISOString()
    : `${ms} ms`;
}
