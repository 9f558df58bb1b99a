/**
 * Properties of promotion windows on the real compiled rules (src/windows), at instants around
 * daylight-saving changes in several zones (Berlin, New York, Sydney, Lord Howe's 30-minute
 * shift, Kolkata's half-hour offset), checked against an oracle that knows no Temporal and no
 * recurrence library: Intl's offsets and RFC 5545's placement rule written out below.
 *   - no automatic promotion inside a deny window, for any instant (and no hold outside one);
 *   - an allow window lets through exactly inside its occurrences, and a held environment's
 *     retryAt is the next occurrence's start;
 *   - the next opening is never in the past, the gate lets through at it and holds just before.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EnvironmentDecision, EvaluationInput } from '../../../src/evaluate/decisions.js';
import type { PromotionWindowSpec } from '../../../src/pipeline/pipeline-resource.js';
import { specWindows } from '../../../src/windows/spec-windows.js';
import { build, decisionFor, healthy } from '../../support/evaluate-builders.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Each zone with days on which its clocks change in 2025 (Kolkata: none, any day will do). */
const ZONES: Record<string, string[]> = {
  'Europe/Berlin': ['2025-03-30', '2025-10-26'],
  'America/New_York': ['2025-03-09', '2025-11-02'],
  'Australia/Sydney': ['2025-04-06', '2025-10-05'],
  'Australia/Lord_Howe': ['2025-04-06', '2025-10-05'],
  'Asia/Kolkata': ['2025-03-30', '2025-10-26'],
};
const DAYS = ['SU', 'MO', 'TU', 'WE', 'TH', 'FR', 'SA'];

// ---- the oracle: Intl offsets and RFC 5545 3.3.5, nothing else ----

const formats = new Map<string, Intl.DateTimeFormat>();

/** The zone's offset at instant `ms` (whole seconds), from Intl. */
function offsetOf(ms: number, zone: string): number {
  let f = formats.get(zone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      ...{ year: 'numeric', month: 'numeric', day: 'numeric' },
      ...{ hour: 'numeric', minute: 'numeric', second: 'numeric' },
    });
    formats.set(zone, f);
  }
  const p = Object.fromEntries(f.formatToParts(new Date(ms)).map((x) => [x.type, Number(x.value)]));
  const wall = Date.UTC(p.year!, p.month! - 1, p.day, p.hour, p.minute, p.second);
  return wall - Math.floor(ms / 1000) * 1000;
}

/** Local wall time as UTC-field milliseconds. */
const wallOf = (ms: number, zone: string) => ms + offsetOf(ms, zone);

/** RFC 5545 3.3.5: a repeated local time is its first instant, a skipped one uses the offset before the gap. */
function place(wall: number, zone: string): number {
  const before = offsetOf(wall - DAY, zone);
  const after = offsetOf(wall + DAY, zone);
  const fits = [wall - before, wall - after].filter((c) => offsetOf(c, zone) === wall - c);
  return fits.length > 0 ? Math.min(...fits) : wall - before;
}

interface Sketch {
  zone: string;
  type: 'Allow' | 'Deny';
  syntax: 'rrule' | 'cron';
  hour: number;
  minute: number;
  /** 0 = Sunday; undefined = every day. */
  weekday: number | undefined;
  /** Go form (exact) or calendar days plus exact minutes. */
  duration: { go: number } | { days: number; minutes: number };
}

function durationText(d: Sketch['duration']): string {
  if ('go' in d) return `${d.go}m`;
  const time = d.minutes === 0 ? '' : `T${d.minutes}M`;
  return d.days === 0 ? `P${time}` : `P${d.days}D${time}`;
}

function specOf(s: Sketch, name: string): PromotionWindowSpec {
  const hh = String(s.hour).padStart(2, '0');
  const mm = String(s.minute).padStart(2, '0');
  const rule = s.weekday === undefined ? 'FREQ=DAILY' : `FREQ=WEEKLY;BYDAY=${DAYS[s.weekday]}`;
  const base = { name, type: s.type, timeZone: s.zone, duration: durationText(s.duration) };
  return s.syntax === 'rrule'
    ? { ...base, rrule: `DTSTART;TZID=${s.zone}:20240101T${hh}${mm}00\nRRULE:${rule}` }
    : { ...base, cron: `${s.minute} ${s.hour} * * ${s.weekday ?? '*'}` };
}

/** The oracle's occurrences of a sketch whose local start day lies in [fromDay, toDay]. */
function occurrences(s: Sketch, around: number): { start: number; end: number }[] {
  const spanDays = 'go' in s.duration ? Math.ceil(s.duration.go / 1440) : s.duration.days + 1;
  const today = Math.floor(wallOf(around, s.zone) / DAY) * DAY;
  const out: { start: number; end: number }[] = [];
  for (let day = today - (spanDays + 1) * DAY; day <= today + 8 * DAY; day += DAY) {
    if (s.weekday !== undefined && new Date(day).getUTCDay() !== s.weekday) continue;
    const start = place(day + s.hour * HOUR + s.minute * MINUTE, s.zone);
    const d = s.duration;
    const end =
      'go' in d
        ? start + d.go * MINUTE
        : place(wallOf(start, s.zone) + d.days * DAY, s.zone) + d.minutes * MINUTE;
    out.push({ start, end });
  }
  return out;
}

const inside = (s: Sketch, t: number) => occurrences(s, t).some((o) => o.start <= t && t < o.end);

// ---- generators ----

const zone = fc.constantFrom(...Object.keys(ZONES));
const durationArb: fc.Arbitrary<Sketch['duration']> = fc.oneof(
  fc.integer({ min: 1, max: 30 * 60 }).map((go) => ({ go })),
  fc
    .record({ days: fc.integer({ min: 0, max: 3 }), minutes: fc.integer({ min: 0, max: 600 }) })
    .filter((d) => d.days + d.minutes > 0),
);

function sketch(type: fc.Arbitrary<Sketch['type']>, z = zone): fc.Arbitrary<Sketch> {
  return fc.record({
    zone: z,
    type,
    syntax: fc.constantFrom<Sketch['syntax']>('rrule', 'cron'),
    // Hours around the changes (0-3 local) are drawn as often as the rest of the day.
    hour: fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 23 })),
    minute: fc.oneof(fc.constantFrom(0, 15, 30, 45), fc.integer({ min: 0, max: 59 })),
    weekday: fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined }),
    duration: durationArb,
  });
}

/** The instant the zone's offset changes within a day of `day` (midnight UTC when it does not). */
function changeNear(day: string, zone: string): number {
  let lo = Date.parse(`${day}T00:00:00Z`) - DAY;
  let hi = lo + 2 * DAY;
  if (offsetOf(lo, zone) === offsetOf(hi, zone)) return lo + DAY;
  while (hi - lo > 1000) {
    const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
    if (offsetOf(mid, zone) === offsetOf(lo, zone)) lo = mid;
    else hi = mid;
  }
  return hi;
}

/**
 * An instant, to the second, within four days of one of the zone's clock changes, or (as often)
 * within three hours of the change itself, where the gaps and repeated hours are.
 */
function instantNear(z: string): fc.Arbitrary<number> {
  const days = ZONES[z] ?? [];
  return fc.oneof(
    fc
      .record({
        day: fc.constantFrom(...days),
        s: fc.integer({ min: -4 * 86_400, max: 4 * 86_400 }),
      })
      .map(({ day, s }) => Date.parse(`${day}T00:00:00Z`) + s * 1000),
    fc
      .record({ day: fc.constantFrom(...days), s: fc.integer({ min: -3 * 3600, max: 3 * 3600 }) })
      .map(({ day, s }) => changeNear(day, z) + s * 1000),
  );
}

/** dev -> prod with dev healthy at 2.0.0, prod at 1.0.0 and `windows` on prod, at `now`. */
function prodWith(windows: PromotionWindowSpec[], now: number): EvaluationInput {
  const input = build(
    [
      { name: 'dev', statuses: [healthy('2.0.0')] },
      {
        name: 'prod',
        statuses: [healthy('1.0.0')],
        promotion: { strategy: { notification: {} }, windows },
      },
    ],
    { now },
  );
  const compiled = specWindows(input.spec);
  return compiled === undefined ? input : { ...input, windows: compiled };
}

function decide(windows: PromotionWindowSpec[], now: number): EnvironmentDecision {
  return decisionFor(prodWith(windows, now), 'prod');
}

const withInstant = <T extends { zone: string }>(a: fc.Arbitrary<T>) =>
  a.chain((s) => instantNear(s.zone).map((t) => ({ s, t })));

describe('promotion windows across daylight-saving changes (fast-check)', () => {
  it('never promotes inside a deny window, and only a deny window in force holds', () => {
    fc.assert(
      fc.property(withInstant(sketch(fc.constant('Deny'))), ({ s, t }) => {
        const d = decide([specOf(s, 'freeze')], t);
        const within = inside(s, t);
        if (within) expect(d.outcome).not.toBe('Promote');
        expect(d.outcome === 'Waiting' && d.reason === 'InDenyWindow').toBe(within);
        if (!within) expect(d.outcome).toBe('Promote');
      }),
      { numRuns: 600 },
    );
  }, 120_000);

  it("lets through exactly inside an allow window's occurrences; retryAt is the next start", () => {
    fc.assert(
      fc.property(withInstant(sketch(fc.constant('Allow'))), ({ s, t }) => {
        const d = decide([specOf(s, 'hours')], t);
        if (inside(s, t)) {
          expect(d.outcome).toBe('Promote');
          return;
        }
        const next = Math.min(
          ...occurrences(s, t)
            .map((o) => o.start)
            .filter((x) => x >= t),
        );
        expect(d).toMatchObject({
          outcome: 'Waiting',
          reason: 'OutsidePromotionWindow',
          retryAt: next,
        });
      }),
      { numRuns: 600 },
    );
  }, 120_000);

  it('the next opening is never in the past, lets through, and nothing opens before it', () => {
    const windowsArb = zone.chain((z) =>
      fc.tuple(
        fc.array(sketch(fc.constantFrom('Allow', 'Deny'), fc.constant(z)), {
          minLength: 1,
          maxLength: 3,
        }),
        instantNear(z),
      ),
    );
    fc.assert(
      fc.property(windowsArb, ([sketches, t]) => {
        const specs = sketches.map((s, i) => specOf(s, `w${i}`));
        const d = decide(specs, t);
        if (d.outcome === 'Promote' || d.retryAt === undefined) return;
        expect(d.retryAt).toBeGreaterThan(t);
        expect(decide(specs, d.retryAt - 1).outcome).toBe('Waiting');
        // Windows that keep each other shut for long: the search's stopping point, still shut.
        if (!d.message.includes('; next opening ')) return;
        expect(decide(specs, d.retryAt).outcome).toBe('Promote');
        // And the oracle agrees the instant is open: in no deny, in an allow if there is one.
        const allows = sketches.filter((s) => s.type === 'Allow');
        expect(sketches.some((s) => s.type === 'Deny' && inside(s, d.retryAt!))).toBe(false);
        if (allows.length > 0) expect(allows.some((s) => inside(s, d.retryAt!))).toBe(true);
      }),
      { numRuns: 300 },
    );
  }, 120_000);

  it("a rule's next start from any instant is the oracle's first occurrence at or after it", () => {
    fc.assert(
      fc.property(withInstant(sketch(fc.constant('Allow'))), ({ s, t }) => {
        const compiled = specWindows({
          appRef: { apiVersion: 'v2', kind: 'HelmRelease', name: 'a' },
          environments: [
            { name: 'prod', targets: [], promotion: { strategy: {}, windows: [specOf(s, 'w')] } },
          ],
        });
        const list = compiled?.environments?.prod;
        if (list?.ok !== true) throw new Error('not compiled');
        const expected = Math.min(
          ...occurrences(s, t)
            .map((o) => o.start)
            .filter((x) => x >= t),
        );
        expect(list.windows[0]!.schedule.nextStart(t)).toBe(expected);
      }),
      { numRuns: 600 },
    );
  }, 120_000);

  it('a daily 02:30 allow window opens at 03:30 on the spring-forward day, at 02:30 otherwise', () => {
    const spec = specOf(
      {
        zone: 'Europe/Berlin',
        type: 'Allow',
        syntax: 'rrule',
        hour: 2,
        minute: 30,
        weekday: undefined,
        duration: { go: 30 },
      },
      'night',
    );
    const from = (iso: string) => decide([spec], Date.parse(iso)).retryAt;
    expect(from('2025-03-29T12:00:00Z')).toBe(Date.parse('2025-03-30T01:30:00Z')); // 03:30 CEST
    expect(from('2025-03-30T12:00:00Z')).toBe(Date.parse('2025-03-31T00:30:00Z')); // 02:30 CEST
    expect(decide([spec], Date.parse('2025-03-30T01:59:59Z')).outcome).toBe('Promote');
    expect(decide([spec], Date.parse('2025-03-30T02:00:00Z')).outcome).toBe('Waiting');
  });
});
