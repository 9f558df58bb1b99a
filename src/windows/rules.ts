/**
 * A window's recurrence on the floating wall clock (see zone.ts): an RFC 5545 RRULE through
 * rrule-temporal, a cron expression through croner. Both libraries run in UTC here, where no
 * daylight-saving gap exists, so neither drops nor moves an occurrence: rrule-temporal omits a
 * local time that falls in a gap (RFC 5545 3.3.10, a freeze that silently vanishes), croner
 * moves a fixed-time job to the end of the gap and skips interval jobs inside it; zone.ts then
 * places every local start the one RFC 5545 way (3.3.5), for both syntaxes alike. Every call
 * passes its time explicitly (neither library then reads the clock for the answer).
 */
import { Cron } from 'croner';
import { RRuleTemporal } from 'rrule-temporal';
import { Temporal } from 'temporal-polyfill';
import { offsetSwing, wallOf } from './zone.js';

/** A recurrence on the floating wall clock. */
export interface FloatingRule {
  /** The first start at or after floating time `fromWall`, or undefined when none follows. */
  next(fromWall: number): number | undefined;
  /** Where its first start is looked for: DTSTART, or for cron the year 2000. */
  readonly origin: number;
  /**
   * The last instant (on the time line, ms) a start may be placed at: an UNTIL given in UTC,
   * which RFC 5545 compares with each start's UTC time, not with its local time.
   */
  readonly until?: number;
}

/** A parse result: the value, or a one-line problem for a person. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

const fail = (problem: string): { ok: false; problem: string } => ({ ok: false, problem });
/** Where a cron expression's first start is looked for (it has no start of its own). */
const Y2K = Date.UTC(2000, 0, 1);
const NICKNAMES = /^@(yearly|annually|monthly|weekly|daily|midnight|hourly)$/i;

/** A cron expression: five fields, six with seconds first, or an @nickname. */
export function cronRule(expression: string): Parsed<FloatingRule> {
  const text = expression.trim();
  const fields = text.split(/\s+/).length;
  if (!NICKNAMES.test(text) && fields !== 5 && fields !== 6)
    return fail(`cron must have five fields (six with seconds first), not ${fields}`);
  // As for an RRULE: a window starts at most once a minute (see tooOften).
  if (fields === 6 && !/^\d{1,2}\s/.test(text))
    return fail('cron seconds field takes one value: a window starts at most once a minute');
  let cron: Cron;
  try {
    // utcOffset 0: plain arithmetic on the floating clock, no time zone involved.
    cron = new Cron(text, { utcOffset: 0, mode: '5-or-6-parts' });
  } catch (error) {
    return fail(`cron: ${message(error)}`);
  }
  return {
    ok: true,
    value: { next: (fromWall) => cron.nextRun(new Date(fromWall - 1))?.getTime(), origin: Y2K },
  };
}

const LOCAL = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z?))?$/;
const WEEKDAY = '(MO|TU|WE|TH|FR|SA|SU)';
const list = (item: string) => new RegExp(`^${item}(,${item})*$`);
const int =
  (min: number, max: number, signed = false) =>
  (value: string) =>
    value.split(',').every((v) => {
      const n = Number(v);
      return (
        /^[+-]?\d{1,3}$/.test(v) &&
        Number.isInteger(n) &&
        Math.abs(n) >= min &&
        Math.abs(n) <= max &&
        (signed || n >= 0)
      );
    });

/** The RRULE parts RFC 5545 defines, each with the check of its value. */
const PARTS: Readonly<Record<string, (value: string) => boolean>> = {
  FREQ: (v) => /^(SECONDLY|MINUTELY|HOURLY|DAILY|WEEKLY|MONTHLY|YEARLY)$/.test(v),
  INTERVAL: (v) => /^\d{1,5}$/.test(v) && Number(v) >= 1,
  COUNT: (v) => /^\d{1,6}$/.test(v) && Number(v) >= 1,
  UNTIL: (v) => LOCAL.test(v),
  BYSECOND: int(0, 59),
  BYMINUTE: int(0, 59),
  BYHOUR: int(0, 23),
  BYDAY: (v) => list(`([+-]?\\d{1,2})?${WEEKDAY}`).test(v),
  BYMONTHDAY: int(1, 31, true),
  BYYEARDAY: int(1, 366, true),
  BYWEEKNO: int(1, 53, true),
  BYMONTH: int(1, 12),
  BYSETPOS: int(1, 366, true),
  WKST: (v) => new RegExp(`^${WEEKDAY}$`).test(v),
};

/**
 * `DTSTART[;TZID=<zone>][;VALUE=DATE|DATE-TIME]:<local time>` and `RRULE:<parts>` on two lines.
 * DTSTART is local time in `zone` (a TZID must name that zone; a UTC `Z` time only with zone
 * UTC); UNTIL may be UTC (`...Z`, RFC 5545's form), local, or a date (through its last second).
 */
export function rrule(text: string, zone: string): Parsed<FloatingRule> {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const dtstartLines = lines.filter((l) => /^DTSTART[;:]/i.test(l));
  const rruleLines = lines.filter((l) => /^RRULE:/i.test(l));
  if (dtstartLines.length !== 1 || rruleLines.length !== 1 || lines.length !== 2)
    return fail('rrule must be exactly two lines: DTSTART and RRULE');
  const start = dtstart(dtstartLines[0] ?? '', zone);
  if (!start.ok) return start;
  const parts = ruleParts((rruleLines[0] ?? '').slice('RRULE:'.length), zone);
  if (!parts.ok) return parts;
  let rule: RRuleTemporal;
  try {
    rule = new RRuleTemporal({
      rruleString: parts.value.text,
      dtstart: start.value,
      temporal: Temporal,
      strict: true,
    });
  } catch (error) {
    return fail(`rrule: ${message(error)}`);
  }
  const next = (fromWall: number) => rule.next(new Date(fromWall), true)?.epochMilliseconds;
  const { until } = parts.value;
  const origin = start.value.epochMilliseconds;
  return { ok: true, value: until === undefined ? { next, origin } : { next, origin, until } };
}

/** DTSTART as a floating time (a ZonedDateTime in UTC whose fields are the local ones). */
function dtstart(line: string, zone: string): Parsed<Temporal.ZonedDateTime> {
  const colon = line.indexOf(':');
  const params = line
    .slice('DTSTART'.length, colon)
    .split(';')
    .filter((p) => p !== '');
  const value = line.slice(colon + 1);
  for (const param of params) {
    const [name = '', arg = ''] = param.split('=');
    if (name.toUpperCase() === 'TZID') {
      if (arg !== zone) return fail(`DTSTART's TZID ${arg} is not the window's timeZone ${zone}`);
    } else if (name.toUpperCase() !== 'VALUE' || !/^DATE(-TIME)?$/i.test(arg)) {
      return fail(`DTSTART parameter ${name} is not supported (TZID and VALUE are)`);
    }
  }
  const m = LOCAL.exec(value);
  if (m === null) return fail('DTSTART must be YYYYMMDD or YYYYMMDDTHHMMSS');
  if (m[7] === 'Z' && zone !== 'UTC')
    return fail('DTSTART in UTC (Z) needs timeZone UTC: write the local time instead');
  try {
    const local = Temporal.PlainDateTime.from(
      {
        year: +(m[1] ?? ''),
        month: +(m[2] ?? ''),
        day: +(m[3] ?? ''),
        hour: +(m[4] ?? 0),
        minute: +(m[5] ?? 0),
        second: +(m[6] ?? 0),
      },
      { overflow: 'reject' },
    );
    return { ok: true, value: local.toZonedDateTime('UTC') };
  } catch {
    return fail('DTSTART is not a valid date and time');
  }
}

/** The RRULE text for the floating clock, and the instant a UTC UNTIL bounds it at. */
interface RuleParts {
  text: string;
  until?: number;
}

/** The RRULE parts checked, with UNTIL turned into the floating clock's UTC form. */
function ruleParts(body: string, zone: string): Parsed<RuleParts> {
  const seen = new Set<string>();
  const out: string[] = [];
  let until: number | undefined;
  for (const part of body.split(';')) {
    const [rawName = '', value = '', extra] = part.split('=');
    const name = rawName.toUpperCase();
    const check = PARTS[name];
    if (check === undefined) return fail(`RRULE part ${rawName || '(empty)'} is not supported`);
    if (seen.has(name)) return fail(`RRULE part ${name} is given twice`);
    seen.add(name);
    const upper = value.toUpperCase();
    if (extra !== undefined || !check(upper)) return fail(`RRULE ${name} has an invalid value`);
    const limit = name === 'UNTIL' ? floatingUntil(upper, zone) : undefined;
    if (limit?.instant !== undefined) until = limit.instant;
    out.push(`${name}=${limit?.text ?? upper}`);
  }
  if (!seen.has('FREQ')) return fail('RRULE needs FREQ');
  const often = tooOften(seen, body);
  if (often !== undefined) return fail(often);
  const text = out.join(';');
  return { ok: true, value: until === undefined ? { text } : { text, until } };
}

/**
 * UNTIL on the floating clock: a date through its last local second, a local time as it is. A
 * UTC time (RFC 5545's form with a TZID) bounds the starts on the time line (3.3.10: "the UTC
 * value"): its `instant` is the bound, and the floating text only ends the expansion, late
 * enough (by the zone's offset change around it) for every start placed at or before it.
 */
function floatingUntil(value: string, zone: string): { text: string; instant?: number } {
  const m = LOCAL.exec(value);
  if (m === null) return { text: value };
  const [, y = '', mo = '', d = '', h, mi, s, z] = m;
  if (h === undefined) return { text: `${y}${mo}${d}T235959Z` };
  if (z !== 'Z') return { text: `${y}${mo}${d}T${h}${mi ?? ''}${s ?? ''}Z` };
  const instant = Date.UTC(+y, +mo - 1, +d, +h, +(mi ?? 0), +(s ?? 0));
  const wall = wallOf(instant, zone) + offsetSwing(instant, zone);
  return { text: new Date(wall).toISOString().replace(/[-:]|\.\d{3}/g, ''), instant };
}

/**
 * Why the rule may start more often than once a minute, if it may: FREQ=SECONDLY, or several
 * BYSECOND values. A window is an occurrence with a duration, never a tick, and following a
 * rule second by second near a daylight-saving change would need thousands of steps.
 */
function tooOften(parts: ReadonlySet<string>, body: string): string | undefined {
  if (/(^|;)FREQ=SECONDLY(;|$)/i.test(body))
    return 'RRULE FREQ=SECONDLY is not supported: a window starts at most once a minute';
  if (parts.has('BYSECOND') && /(^|;)BYSECOND=[^;]*,/i.test(body))
    return 'RRULE BYSECOND takes one value: a window starts at most once a minute';
  return undefined;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message.slice(0, 200) : 'invalid';
}
