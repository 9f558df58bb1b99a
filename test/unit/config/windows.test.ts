/**
 * The operator's promotion windows (config promotion.windows): compiled at load, applied to the
 * environments they name; a rule the schema cannot judge is refused at load naming its field.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, defaultConfig } from '../../../src/config/load.js';
import type { PromotionWindowInput } from '../../../src/config/input.js';

function problemsOf(windows: unknown[]): readonly string[] {
  try {
    defaultConfig({ promotion: { windows: windows as PromotionWindowInput[] } });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.problems;
  }
  return [];
}

const freeze: PromotionWindowInput = {
  name: 'year-end',
  type: 'Deny',
  rrule: 'DTSTART;TZID=Europe/Berlin:20241220T000000\nRRULE:FREQ=YEARLY',
  timeZone: 'Europe/Berlin',
  duration: 'P17D',
  environments: ['prod'],
};

describe('config promotion.windows', () => {
  it('is empty by default', () => {
    expect(defaultConfig().promotion.windows).toEqual([]);
  });

  it('compiles each window once, with its defaults', () => {
    const [w] = defaultConfig({ promotion: { windows: [freeze] } }).promotion.windows;
    expect(w).toMatchObject({
      name: 'year-end',
      type: 'Deny',
      level: 'fleet',
      authorizationsPassFreeze: false,
      environments: ['prod'],
    });
    const start = w!.schedule.nextStart(Date.parse('2025-06-01T00:00:00Z'))!;
    expect(new Date(start).toISOString()).toBe('2025-12-19T23:00:00.000Z');
    expect(w!.schedule.local(w!.schedule.endOf(start))).toBe(
      'Tue 2026-01-06 00:00 Europe/Berlin (+01:00)',
    );
  });

  it('takes a window of exactly 366 days, the longest it says it takes', () => {
    const [w] = defaultConfig({ promotion: { windows: [{ ...freeze, duration: '8784h' }] } })
      .promotion.windows;
    expect(w?.schedule.maxDurationMs).toBe(366 * 86_400_000);
  });

  it('takes every environment when none is named', () => {
    const { environments, ...all } = freeze;
    expect(environments).toBeDefined();
    const [w] = defaultConfig({ promotion: { windows: [all] } }).promotion.windows;
    expect(w?.environments).toEqual([]);
  });

  it.each([
    [
      { ...freeze, rrule: 'DTSTART:20241220T000000\nRRULE:FREQ=FORTNIGHTLY' },
      'config /promotion/windows/0/rrule: RRULE FREQ has an invalid value',
    ],
    [
      { ...freeze, timeZone: 'Europe/Atlantis' },
      'config /promotion/windows/0/timeZone: not an IANA time zone (e.g. Europe/Berlin)',
    ],
    [
      { ...freeze, rrule: undefined, cron: '0 0 20 12 * *', duration: 'P400D' },
      'config /promotion/windows/0/duration: must be like 8h, 90m, PT8H, P2DT14H or P2W, longer than 0 and at most 366 days',
    ],
    [
      {
        ...freeze,
        rrule:
          'DTSTART;TZID=Europe/Berlin:20250101T000000\nRRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30',
      },
      'config /promotion/windows/0/rrule: the rule produces no occurrence, so the window would never be in force',
    ],
    [
      { ...freeze, rrule: undefined, cron: '0 0 31 2 *' },
      'config /promotion/windows/0/cron: the rule produces no occurrence, so the window would never be in force',
    ],
    [
      { ...freeze, rrule: 'DTSTART;TZID=Europe/Berlin:20250101T000000\nRRULE:FREQ=SECONDLY' },
      'config /promotion/windows/0/rrule: RRULE FREQ=SECONDLY is not supported: a window starts at most once a minute',
    ],
  ])('refuses a rule it cannot follow, naming the field: %#', (window, problem) => {
    expect(problemsOf([window])).toEqual([problem]);
  });

  it.each([
    ['both rrule and cron', { ...freeze, cron: '0 0 20 12 *' }],
    ['neither rrule nor cron', { ...freeze, rrule: undefined }],
    ['a lower-case type', { ...freeze, type: 'deny' }],
    ['an unknown field', { ...freeze, zone: 'UTC' }],
    ['a duration in days, Go style', { ...freeze, duration: '17d' }],
  ])('refuses %s by its shape', (_name, window) => {
    const problems = problemsOf([window]);
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.join('\n')).toContain('/promotion/windows/0');
  });
});
