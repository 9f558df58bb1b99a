/**
 * A window spec, the Pipeline's or the operator's, compiled once into the evaluator's
 * PromotionWindow: the rule parsed, the time zone and duration checked, and a WindowSchedule
 * that answers on the time line (see zone.ts for the DST rules, rules.ts for the libraries).
 */
import { Temporal } from 'temporal-polyfill';
import { DURATION_PATTERN, parseDuration } from '../time/duration.js';
import type { PromotionWindow, WindowLevel, WindowSchedule } from './promotion-window.js';
import type { PromotionWindowSpec } from '../pipeline/pipeline-resource.js';
import { cronRule, rrule, type FloatingRule, type Parsed } from './rules.js';
import {
  TRANSITION_REACH_MS,
  addDuration,
  canonicalZone,
  formatLocal,
  offsetSwing,
  placeWall,
  wallOf,
} from './zone.js';

const DAY_MS = 86_400_000;
/** The longest window: a year and a day (a freeze longer than that is a typo, never a plan). */
const MAX_DAYS = 366;
/** Local starts one answer may look at; only a rule firing every few seconds near a DST change needs many. */
const MAX_SCAN = 5_000;
const NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
/** RFC 5545 dur-value (ISO 8601 without years and months): P2W, P1DT12H, PT90M. */
const CALENDAR_DURATION =
  /^P(?:(\d{1,3})W|(?:(\d{1,3})D)?(?:T(?:(\d{1,4})H)?(?:(\d{1,6})M)?(?:(\d{1,8})S)?)?)$/;

const fail = (problem: string): { ok: false; problem: string } => ({ ok: false, problem });

/** A duration checked: the Temporal duration to add and the longest real time it can take. */
interface WindowDuration {
  duration: Temporal.Duration;
  maxMs: number;
}

/** Compiles one window spec; a problem names the field at fault (`timeZone: ...`). */
export function compileWindow(
  spec: PromotionWindowSpec,
  level: WindowLevel,
): Parsed<PromotionWindow> {
  if (typeof spec.name !== 'string' || !NAME.test(spec.name))
    return fail('name: must be a DNS label (lower case letters, digits and -)');
  // Specs reach here checked by a schema, but a config built in code may not have been.
  const type: unknown = spec.type;
  if (type !== 'Allow' && type !== 'Deny') return fail('type: must be Allow or Deny');
  const zone = typeof spec.timeZone === 'string' ? canonicalZone(spec.timeZone) : undefined;
  if (zone === undefined) return fail('timeZone: not an IANA time zone (e.g. Europe/Berlin)');
  const duration = parseWindowDuration(spec.duration);
  if (!duration.ok) return duration;
  const rule = ruleOf(spec, zone);
  if (!rule.ok) return rule;
  const never = neverStarts(rule.value, zone, typeof spec.rrule === 'string' ? 'rrule' : 'cron');
  if (never !== undefined) return fail(never);
  return {
    ok: true,
    value: {
      name: spec.name,
      type,
      level,
      authorizationsPassFreeze: spec.authorizationsPassFreeze === true,
      ...(spec.mode === 'Shadow' ? { shadow: true as const } : {}),
      schedule: scheduleOf(rule.value, zone, duration.value),
    },
  };
}

function ruleOf(spec: PromotionWindowSpec, zone: string): Parsed<FloatingRule> {
  const hasRrule = typeof spec.rrule === 'string';
  const hasCron = typeof spec.cron === 'string';
  if (hasRrule === hasCron) return fail('exactly one of rrule and cron is needed');
  const parsed = hasRrule ? rrule(spec.rrule ?? '', zone) : cronRule(spec.cron ?? '');
  return parsed.ok ? parsed : fail(`${hasRrule ? 'rrule' : 'cron'}: ${parsed.problem}`);
}

/**
 * `8h`, `1h30m` (Go's form, as Flux and the soak write it: exact time), or RFC 5545's `PT8H`,
 * `P2DT14H`, `P2W` (days and weeks on the calendar: `P1D` ends at the same local time the next
 * day, 23 or 25 hours later across a DST change).
 */
export function parseWindowDuration(text: unknown): Parsed<WindowDuration> {
  const bad = fail(
    'duration: must be like 8h, 90m, PT8H, P2DT14H or P2W, longer than 0 and at most 366 days',
  );
  if (typeof text !== 'string') return bad;
  if (DURATION_PATTERN.test(text)) {
    const ms = parseDuration(text, MAX_DAYS * DAY_MS);
    if (ms === undefined || ms <= 0) return bad;
    return {
      ok: true,
      value: { duration: Temporal.Duration.from({ milliseconds: ms }), maxMs: ms },
    };
  }
  const m = CALENDAR_DURATION.exec(text);
  if (m === null || text === 'P' || text.endsWith('T')) return bad;
  const [weeks, days, hours, minutes, seconds] = (m.slice(1) as (string | undefined)[]).map((v) =>
    Number(v ?? 0),
  );
  const calendarDays = (weeks ?? 0) * 7 + (days ?? 0);
  const exactMs = ((hours ?? 0) * 3600 + (minutes ?? 0) * 60 + (seconds ?? 0)) * 1000;
  const total = calendarDays * DAY_MS + exactMs;
  if (total <= 0 || total > MAX_DAYS * DAY_MS) return bad;
  const duration = Temporal.Duration.from({ days: calendarDays, milliseconds: exactMs });
  // A calendar day lasts 24 h give or take the zone's offset changes on the way.
  const slack = calendarDays > 0 ? TRANSITION_REACH_MS : 0;
  return { ok: true, value: { duration, maxMs: total + slack } };
}

/**
 * Why a rule that has no start at all cannot be a window, or undefined when it has one: a
 * rule that never fires (`BYMONTH=2;BYMONTHDAY=30`, cron `0 0 30 2 *`) would make a deny window
 * that never holds and an allow window that never opens, and it is only found by searching
 * (rrule-temporal gives up after its own bounded search, 10,000 steps), so it is searched for
 * once, here, from the rule's start, rather than at every evaluation.
 */
function neverStarts(rule: FloatingRule, zone: string, field: string): string | undefined {
  const problem = `${field}: the rule produces no occurrence, so the window would never be in force`;
  try {
    return firstStart(rule, zone, placeWall(rule.origin, zone) - DAY_MS) === undefined
      ? problem
      : undefined;
  } catch {
    return problem;
  }
}

function scheduleOf(rule: FloatingRule, zone: string, d: WindowDuration): WindowSchedule {
  const memo = new StartMemo();
  return {
    nextStart: (from) => memo.answer(from, () => firstStart(rule, zone, from)),
    endOf: (start) => addDuration(start, zone, d.duration),
    maxDurationMs: d.maxMs,
    local: (ms) => formatLocal(ms, zone),
  };
}

/**
 * The earliest start on the time line at or after `from` (and not after the rule's UTC UNTIL).
 * Away from offset changes local and real time run in step, so the first local start at or
 * after `from`'s local time is it. Near one, a start moved forward out of a gap can land after
 * a later local start (02:30 -> 03:30, after a 03:10 start), so the search begins the offset
 * change earlier and goes on that much past the best start found.
 */
function firstStart(rule: FloatingRule, zone: string, from: number): number | undefined {
  let wall = rule.next(wallOf(from, zone) - offsetSwing(from, zone));
  let best: number | undefined;
  let stopAfter = Number.POSITIVE_INFINITY;
  const until = rule.until ?? Number.POSITIVE_INFINITY;
  for (let n = 0; wall !== undefined && wall <= stopAfter; n++) {
    if (n >= MAX_SCAN)
      throw new Error('the rule fires too often near a time-zone change to follow');
    const at = placeWall(wall, zone);
    if (at >= from && at <= until && (best === undefined || at < best)) {
      best = at;
      stopAfter = wall + offsetSwing(at, zone);
    }
    if (wall >= stopAfter) break;
    wall = rule.next(wall + 1);
  }
  return best;
}

/**
 * nextStart's answers kept as ranges: any `q` with from <= q <= answer has the same answer
 * (no start lies between). Evaluations of many Pipelines at nearly the same `now` share one
 * fleet window, so most questions are answered here, without the libraries.
 */
class StartMemo {
  private readonly ranges: { from: number; answer: number | undefined }[] = [];

  answer(from: number, compute: () => number | undefined): number | undefined {
    for (const r of this.ranges) {
      if (from >= r.from && (r.answer === undefined || from <= r.answer)) return r.answer;
    }
    const answer = compute();
    this.ranges.push({ from, answer });
    if (this.ranges.length > 32) this.ranges.shift();
    return answer;
  }
}
