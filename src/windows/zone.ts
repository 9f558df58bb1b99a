/**
 * Wall-clock time in an IANA time zone, through the Temporal API (temporal-polyfill until Node
 * ships Temporal). Recurrence rules are expanded on a "floating" wall clock, written here as
 * milliseconds of a UTC date whose fields are the local ones, then placed on the time line
 * as RFC 5545 places a DATE-TIME with a TZID (section 3.3.5, Temporal's 'compatible'): a local
 * time skipped by a spring-forward gap moves forward by the gap (02:30 -> 03:30 in Berlin), a
 * repeated one (fall back) is its first occurrence. Every call takes its time as an argument.
 */
import { Temporal } from 'temporal-polyfill';

const HOUR_MS = 3_600_000;
/** Offset changes are looked for this far either side of an instant (covers a skipped day). */
export const TRANSITION_REACH_MS = 26 * HOUR_MS;
const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/** The zone's canonical identifier, or undefined when `id` names no IANA time zone. */
export function canonicalZone(id: string): string | undefined {
  try {
    return Temporal.Instant.fromEpochMilliseconds(0).toZonedDateTimeISO(id).timeZoneId;
  } catch {
    return undefined;
  }
}

function zoned(ms: number, zone: string): Temporal.ZonedDateTime {
  return Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(zone);
}

/** The local wall-clock time of instant `ms` in `zone`, as floating milliseconds. */
export function wallOf(ms: number, zone: string): number {
  const z = zoned(ms, zone);
  return Date.UTC(z.year, z.month - 1, z.day, z.hour, z.minute, z.second, z.millisecond);
}

/** The instant of floating wall-clock time `wall` in `zone` (RFC 5545 3.3.5, see above). */
export function placeWall(wall: number, zone: string): number {
  const d = new Date(wall);
  const local = new Temporal.PlainDateTime(
    d.getUTCFullYear(),
    d.getUTCMonth() + 1,
    d.getUTCDate(),
    d.getUTCHours(),
    d.getUTCMinutes(),
    d.getUTCSeconds(),
    d.getUTCMilliseconds(),
  );
  return local.toZonedDateTime(zone, { disambiguation: 'compatible' }).epochMilliseconds;
}

/** The zone's UTC offset at instant `ms`, in ms. */
function offsetAt(ms: number, zone: string): number {
  return zoned(ms, zone).offsetNanoseconds / 1_000_000;
}

/**
 * The largest change of the zone's offset within TRANSITION_REACH_MS of `ms`: 0 away from
 * daylight-saving (and other) transitions, where wall clock and time line run in step.
 */
export function offsetSwing(ms: number, zone: string): number {
  const here = offsetAt(ms, zone);
  return Math.max(
    Math.abs(offsetAt(ms - TRANSITION_REACH_MS, zone) - here),
    Math.abs(offsetAt(ms + TRANSITION_REACH_MS, zone) - here),
  );
}

/**
 * `start` plus `duration` in `zone`: weeks and days on the calendar (the same local time that
 * many days later, placed as above), hours, minutes and seconds exactly, as RFC 5545 3.3.6 asks.
 */
export function addDuration(start: number, zone: string, duration: Temporal.Duration): number {
  return zoned(start, zone).add(duration).epochMilliseconds;
}

/** `Mon 2025-03-31 09:00 Europe/Berlin (+02:00)`; seconds shown when not zero. */
export function formatLocal(ms: number, zone: string): string {
  const z = zoned(ms, zone);
  const two = (n: number) => String(n).padStart(2, '0');
  const seconds = z.second === 0 ? '' : `:${two(z.second)}`;
  const date = `${String(z.year).padStart(4, '0')}-${two(z.month)}-${two(z.day)}`;
  const day = WEEKDAYS[z.dayOfWeek - 1] ?? '';
  return `${day} ${date} ${two(z.hour)}:${two(z.minute)}${seconds} ${zone} (${z.offset})`;
}
