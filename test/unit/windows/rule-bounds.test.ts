/**
 * What bounds a window's rule, on the real libraries: an RRULE's UNTIL given in UTC ends the
 * rule on the time line (RFC 5545 3.3.10 compares each start's UTC time with it), also on the
 * days the clocks change; a duration may be exactly 366 days; a rule that never fires and a
 * rule firing more often than once a minute are refused when the spec is compiled; cron's
 * day-of-month and day-of-week fields combine as croner combines them.
 */
import { describe, expect, it } from 'vitest';
import { closureAt, type PromotionWindow } from '../../../src/windows/promotion-window.js';
import type { PromotionWindowSpec } from '../../../src/pipeline/pipeline-resource.js';
import { compileWindow } from '../../../src/windows/compile.js';

function compile(spec: Partial<PromotionWindowSpec>): PromotionWindow {
  const result = compileWindow(
    { name: 'w', type: 'Deny', timeZone: 'Europe/Berlin', duration: '30m', ...spec },
    'environment',
  );
  if (!result.ok) throw new Error(result.problem);
  return result.value;
}

function problemOf(spec: Partial<PromotionWindowSpec>): string {
  const result = compileWindow(
    { name: 'w', type: 'Deny', timeZone: 'Europe/Berlin', duration: '1h', ...spec },
    'fleet',
  );
  return result.ok ? 'compiled' : result.problem;
}

const denies = (w: PromotionWindow, at: string) => closureAt([w], Date.parse(at)) !== undefined;

describe('UNTIL in UTC bounds a daily 02:30 (01:30 in New York autumn) deny window on the time line', () => {
  it.each([
    // zone, DTSTART (local), UNTIL (UTC), instants it denies, instants it does not
    // The spring change: the last day's start is skipped forward by the gap, past UNTIL.
    [
      'Europe/Berlin',
      '20250325T023000',
      '20250330T011500Z',
      ['2025-03-29T01:35:00Z'],
      ['2025-03-30T01:35:00Z'],
    ],
    [
      'America/New_York',
      '20250304T023000',
      '20250309T071500Z',
      ['2025-03-08T07:35:00Z'],
      ['2025-03-09T07:35:00Z'],
    ],
    [
      'Australia/Sydney',
      '20250930T023000',
      '20251004T161500Z',
      ['2025-10-03T16:35:00Z'],
      ['2025-10-04T16:35:00Z'],
    ],
    // The autumn change: the last day's start is the first of the repeated hour, before UNTIL
    // (whose local time, in the second pass of that hour, is earlier than the start's).
    [
      'Europe/Berlin',
      '20251020T023000',
      '20251026T011500Z',
      ['2025-10-26T00:30:00Z', '2025-10-26T00:45:00Z'],
      ['2025-10-26T01:30:00Z'],
    ],
    [
      'America/New_York',
      '20251028T013000',
      '20251102T061500Z',
      ['2025-11-02T05:30:00Z', '2025-11-02T05:45:00Z'],
      ['2025-11-02T06:30:00Z'],
    ],
    [
      'Australia/Sydney',
      '20250401T023000',
      '20250405T161500Z',
      ['2025-04-05T15:30:00Z', '2025-04-05T15:45:00Z'],
      ['2025-04-05T16:30:00Z'],
    ],
  ])('%s from %s until %s', (zone, start, until, inside, outside) => {
    const w = compile({
      timeZone: zone,
      rrule: `DTSTART;TZID=${zone}:${start}\nRRULE:FREQ=DAILY;UNTIL=${until}`,
    });
    for (const at of inside) expect([at, denies(w, at)]).toEqual([at, true]);
    for (const at of outside) expect([at, denies(w, at)]).toEqual([at, false]);
    const last = Date.parse(inside[0] ?? '');
    expect(w.schedule.nextStart(last + 60_000)).toBeUndefined();
  });
});

describe('durations up to 366 days', () => {
  it.each(['8784h', '527040m', 'P366D', 'PT8784H'])('takes exactly 366 days as %s', (duration) => {
    const w = compile({ cron: '0 0 1 1 *', duration });
    const start = w.schedule.nextStart(Date.parse('2025-06-01T00:00:00Z')) ?? 0;
    expect(w.schedule.endOf(start) - start).toBe(366 * 86_400_000);
  });

  it.each(['8785h', 'P367D', '8784h1s'])('refuses %s', (duration) => {
    expect(problemOf({ cron: '0 0 1 1 *', duration })).toMatch(/^duration: .*at most 366 days$/);
  });
});

describe('rules the gateway cannot follow are refused when compiled', () => {
  it.each([
    ['DTSTART:20250101T090000\nRRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30', 'rrule'],
    ['DTSTART:20250101T090000\nRRULE:FREQ=MONTHLY;BYMONTH=4;BYMONTHDAY=31', 'rrule'],
    ['DTSTART:20250101T090000\nRRULE:FREQ=DAILY;UNTIL=20241231T000000Z', 'rrule'],
  ])('a rule with no occurrence: %j', (rrule, field) => {
    expect(problemOf({ rrule })).toBe(
      `${field}: the rule produces no occurrence, so the window would never be in force`,
    );
  });

  it.each(['0 0 30 2 *', '0 0 31 4,6,9,11 *'])(
    'a cron expression with no occurrence: %s',
    (cron) => {
      expect(problemOf({ cron })).toBe(
        'cron: the rule produces no occurrence, so the window would never be in force',
      );
    },
  );

  it('keeps rare rules: the 29th of February, a Monday that is one', () => {
    const leap = compile({
      rrule: 'DTSTART:20250101T090000\nRRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO',
    });
    const start = leap.schedule.nextStart(Date.parse('2025-01-01T00:00:00Z'));
    expect(new Date(start ?? 0).toISOString()).toBe('2044-02-29T08:00:00.000Z');
    expect(problemOf({ cron: '0 0 29 2 *' })).toBe('compiled');
  });

  it.each([
    [
      { rrule: 'DTSTART:20250101T090000\nRRULE:FREQ=SECONDLY' },
      /^rrule: RRULE FREQ=SECONDLY is not supported: a window starts at most once a minute$/,
    ],
    [
      { rrule: 'DTSTART:20250101T090000\nRRULE:FREQ=MINUTELY;BYSECOND=0,30' },
      /^rrule: RRULE BYSECOND takes one value/,
    ],
    [
      { cron: '* * * * * *' },
      /^cron: cron seconds field takes one value: a window starts at most once a minute$/,
    ],
    [{ cron: '*/5 * * * * *' }, /^cron: cron seconds field takes one value/],
  ])('a rule starting more often than once a minute: %o', (spec, problem) => {
    expect(problemOf(spec)).toMatch(problem);
  });

  it('follows a rule starting every minute, and one at a fixed second, across a change', () => {
    const minutely = compile({
      rrule: 'DTSTART:20250101T000000\nRRULE:FREQ=MINUTELY',
      duration: '1m',
    });
    const at = Date.parse('2025-03-30T00:59:30Z');
    expect(new Date(minutely.schedule.nextStart(at) ?? 0).toISOString()).toBe(
      '2025-03-30T01:00:00.000Z',
    );
    const seconds = compile({ cron: '30 0 2 * * *' }); // 02:00:30, inside the gap on 30 March
    expect(
      new Date(seconds.schedule.nextStart(Date.parse('2025-03-30T00:00:00Z')) ?? 0).toISOString(),
    ).toBe('2025-03-30T01:00:30.000Z');
  });
});

describe('cron day-of-month and day-of-week, as croner reads them', () => {
  const days = (cron: string, count: number) => {
    const w = compile({ cron, timeZone: 'UTC' });
    const out: string[] = [];
    let t = Date.parse('2025-09-01T00:00:01Z');
    for (let i = 0; i < count; i++) {
      const s = w.schedule.nextStart(t) ?? 0;
      out.push(new Date(s).toISOString().slice(5, 10));
      t = s + 1;
    }
    return out;
  };

  it('with both restricted, `*/2` included, a day matching either (Vixie would take both for */2)', () => {
    // Odd days of September 2025, and every Monday (the 8th, 15th): not only the odd Mondays.
    expect(days('0 0 */2 * MON', 8)).toEqual([
      '09-03',
      '09-05',
      '09-07',
      '09-08',
      '09-09',
      '09-11',
      '09-13',
      '09-15',
    ]);
    expect(days('0 0 1,15 * MON', 4)).toEqual(['09-08', '09-15', '09-22', '09-29']);
  });

  it('with one of them `*`, the other alone', () => {
    expect(days('0 0 * * MON', 3)).toEqual(['09-08', '09-15', '09-22']);
    expect(days('0 0 */10 * *', 3)).toEqual(['09-11', '09-21', '10-01']);
  });
});
