/**
 * Window specs compiled on the real libraries (rrule-temporal, croner, temporal-polyfill): where
 * occurrences land at daylight-saving changes in several zones, what durations span, and which
 * specs are refused with which field named.
 */
import { describe, expect, it } from 'vitest';
import type { PromotionWindow } from '../../../src/windows/promotion-window.js';
import type { PromotionWindowSpec } from '../../../src/pipeline/pipeline-resource.js';
import { compileWindow } from '../../../src/windows/compile.js';

function compile(spec: Partial<PromotionWindowSpec>): PromotionWindow {
  const result = compileWindow(
    { name: 'w', type: 'Deny', timeZone: 'Europe/Berlin', duration: '1h', ...spec },
    'environment',
  );
  if (!result.ok) throw new Error(result.problem);
  return result.value;
}

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());
const ms = (text: string) => Date.parse(text);

/** A daily local time as an RRULE and as cron: both must land on the same instants. */
function daily(
  zone: string,
  hour: number,
  minute: number,
  dtstart = '20250101',
): PromotionWindow[] {
  const hh = String(hour).padStart(2, '0');
  const mm = String(minute).padStart(2, '0');
  return [
    compile({
      timeZone: zone,
      rrule: `DTSTART;TZID=${zone}:${dtstart}T${hh}${mm}00\nRRULE:FREQ=DAILY`,
    }),
    compile({ timeZone: zone, cron: `${minute} ${hour} * * *` }),
  ];
}

describe('openings at daylight-saving changes (RFC 5545 3.3.5: a skipped time moves forward by the gap, a repeated one is its first)', () => {
  it.each([
    // zone, local time, day (UTC midnight before it), expected instant
    ['Europe/Berlin', 2, 30, '2025-03-29T00:00:00Z', '2025-03-29T01:30:00.000Z'], // CET
    ['Europe/Berlin', 2, 30, '2025-03-30T00:00:00Z', '2025-03-30T01:30:00.000Z'], // gap: 03:30 CEST
    ['Europe/Berlin', 2, 30, '2025-03-31T00:00:00Z', '2025-03-31T00:30:00.000Z'], // CEST
    ['Europe/Berlin', 2, 30, '2025-10-25T23:00:00Z', '2025-10-26T00:30:00.000Z'], // twice: first (CEST)
    ['America/New_York', 2, 30, '2025-03-09T05:00:00Z', '2025-03-09T07:30:00.000Z'], // gap: 03:30 EDT
    ['America/New_York', 1, 30, '2025-11-02T04:00:00Z', '2025-11-02T05:30:00.000Z'], // twice: EDT
    ['Australia/Sydney', 2, 30, '2025-10-04T13:00:00Z', '2025-10-04T16:30:00.000Z'], // gap: 03:30 AEDT
    ['Australia/Sydney', 2, 30, '2025-04-05T13:00:00Z', '2025-04-05T15:30:00.000Z'], // twice: AEDT
    ['Australia/Lord_Howe', 2, 15, '2025-10-04T13:00:00Z', '2025-10-04T15:45:00.000Z'], // 30-min gap
    ['Australia/Lord_Howe', 1, 45, '2025-04-05T13:00:00Z', '2025-04-05T14:45:00.000Z'], // twice: +11
    ['Asia/Kolkata', 9, 0, '2025-03-30T00:00:00Z', '2025-03-30T03:30:00.000Z'], // +05:30, no DST
  ])('%s %d:%d after %s opens at %s', (zone, hour, minute, from, expected) => {
    for (const window of daily(zone, hour, minute)) {
      expect(iso(window.schedule.nextStart(ms(from)))).toBe(expected);
    }
  });

  it('keeps the order of the time line when a moved start passes a later one (02:30 -> 03:30 after 03:10)', () => {
    const window = compile({
      rrule: 'DTSTART:20250101T023000\nRRULE:FREQ=DAILY;BYHOUR=2,3;BYMINUTE=10,30',
    });
    const starts: (string | undefined)[] = [];
    let t = ms('2025-03-30T00:00:00Z');
    for (let i = 0; i < 3; i++) {
      const s = window.schedule.nextStart(t);
      starts.push(iso(s));
      t = (s ?? 0) + 1;
    }
    // 02:10 and 02:30 are skipped (-> 01:10Z, 01:30Z), 03:10 is 01:10Z too, 03:30 is 01:30Z.
    expect(starts).toEqual([
      '2025-03-30T01:10:00.000Z',
      '2025-03-30T01:30:00.000Z',
      '2025-03-31T00:10:00.000Z',
    ]);
  });

  it('a start is never before the time asked from, and the next one after it follows it', () => {
    const [rule] = daily('Europe/Berlin', 2, 30);
    const from = ms('2025-03-30T01:30:00.001Z');
    expect(iso(rule!.schedule.nextStart(from))).toBe('2025-03-31T00:30:00.000Z');
  });
});

describe('durations', () => {
  const start = ms('2025-03-29T11:00:00Z'); // Sat 12:00 CET, the day before the change
  it.each([
    ['P1D', '2025-03-30T10:00:00.000Z'], // same local time: 23 hours
    ['PT24H', '2025-03-30T11:00:00.000Z'], // exact
    ['24h', '2025-03-30T11:00:00.000Z'], // Go form: exact
    ['P1DT30M', '2025-03-30T10:30:00.000Z'],
    ['P1W', '2025-04-05T10:00:00.000Z'],
  ])('%s from Sat 12:00 CET ends at %s', (duration, end) => {
    expect(iso(compile({ cron: '0 12 * * *', duration }).schedule.endOf(start))).toBe(end);
  });

  it('a weekend freeze Fri 18:00 + P2DT14H ends Mon 08:00 local across the change', () => {
    const w = compile({ cron: '0 18 * * FRI', duration: 'P2DT14H' });
    const friday = w.schedule.nextStart(ms('2025-03-28T00:00:00Z'))!;
    expect(w.schedule.local(friday)).toBe('Fri 2025-03-28 18:00 Europe/Berlin (+01:00)');
    expect(w.schedule.local(w.schedule.endOf(friday))).toBe(
      'Mon 2025-03-31 08:00 Europe/Berlin (+02:00)',
    );
  });
});

describe('RRULE details', () => {
  it('UNTIL in UTC ends the rule at that instant; a date UNTIL runs through that local day', () => {
    const utc = compile({
      rrule: 'DTSTART:20250101T090000\nRRULE:FREQ=DAILY;UNTIL=20250103T080000Z',
    });
    expect(iso(utc.schedule.nextStart(ms('2025-01-03T00:00:00Z')))).toBe(
      '2025-01-03T08:00:00.000Z',
    );
    expect(utc.schedule.nextStart(ms('2025-01-03T08:00:01Z'))).toBeUndefined();
    const date = compile({ rrule: 'DTSTART:20250101T090000\nRRULE:FREQ=DAILY;UNTIL=20250103' });
    expect(iso(date.schedule.nextStart(ms('2025-01-03T00:00:00Z')))).toBe(
      '2025-01-03T08:00:00.000Z',
    );
    expect(date.schedule.nextStart(ms('2025-01-03T08:00:01Z'))).toBeUndefined();
  });

  it('a year-end freeze from a VALUE=DATE start', () => {
    const w = compile({
      rrule: 'DTSTART;VALUE=DATE:20241220\nRRULE:FREQ=YEARLY',
      duration: 'P17D',
    });
    const s = w.schedule.nextStart(ms('2025-06-01T00:00:00Z'))!;
    expect(w.schedule.local(s)).toBe('Sat 2025-12-20 00:00 Europe/Berlin (+01:00)');
    expect(w.schedule.local(w.schedule.endOf(s))).toBe(
      'Tue 2026-01-06 00:00 Europe/Berlin (+01:00)',
    );
  });

  it('the half-hour offset shows in local times', () => {
    const [w] = daily('Asia/Kolkata', 9, 0);
    expect(w!.schedule.local(ms('2025-03-30T03:30:15Z'))).toBe(
      'Sun 2025-03-30 09:00:15 Asia/Kolkata (+05:30)',
    );
  });
});

describe('refused specs name the field', () => {
  it.each([
    [{ timeZone: 'Mars/Olympus_Mons', cron: '0 9 * * *' }, /^timeZone: /],
    [{ cron: '0 9 * * *', duration: '0s' }, /^duration: /],
    [{ cron: '0 9 * * *', duration: 'P400D' }, /^duration: /],
    [{ cron: '0 9 * * *', duration: 'PT' }, /^duration: /],
    [{ cron: '0 9 * * *', duration: '1d' }, /^duration: /],
    [
      { cron: '0 9 * * *', rrule: 'DTSTART:20250101T090000\nRRULE:FREQ=DAILY' },
      /exactly one of rrule and cron/,
    ],
    [{}, /exactly one of rrule and cron/],
    [{ cron: '0 9 * *' }, /^cron: cron must have five fields/],
    [{ cron: '61 9 * * *' }, /^cron: cron: /],
    [{ cron: '2025-12-20T00:00:00' }, /^cron: /],
    [{ rrule: 'RRULE:FREQ=DAILY' }, /^rrule: rrule must be exactly two lines/],
    [{ rrule: 'DTSTART;TZID=America/New_York:20250101T090000\nRRULE:FREQ=DAILY' }, /TZID/],
    [{ rrule: 'DTSTART:20250101T090000Z\nRRULE:FREQ=DAILY' }, /needs timeZone UTC/],
    [{ rrule: 'DTSTART:20250230T090000\nRRULE:FREQ=DAILY' }, /not a valid date/],
    [
      { rrule: 'DTSTART:20250101T090000\nRRULE:FREQ=DAILY;BYHOUR=25' },
      /BYHOUR has an invalid value/,
    ],
    [
      { rrule: 'DTSTART:20250101T090000\nRRULE:FREQ=DAILY;RSCALE=HEBREW' },
      /RSCALE is not supported/,
    ],
    [{ rrule: 'DTSTART:20250101T090000\nRRULE:INTERVAL=2' }, /needs FREQ/],
    [
      { rrule: 'DTSTART:20250101T090000\nRRULE:FREQ=DAILY;COUNT=2;UNTIL=20250109T000000Z' },
      /^rrule: rrule: /,
    ],
    [{ name: 'Not A Label', cron: '0 9 * * *' }, /^name: /],
    [{ type: 'Maybe' as PromotionWindowSpec['type'], cron: '0 9 * * *' }, /^type: /],
  ])('%o', (spec, problem) => {
    const result = compileWindow(
      { name: 'w', type: 'Deny', timeZone: 'Europe/Berlin', duration: '1h', ...spec },
      'fleet',
    );
    expect(result.ok ? 'compiled' : result.problem).toMatch(problem);
  });
});
