import { describe, expect, it } from 'vitest';
import { isRfc3339, parseTimestamp } from '../../../src/time/kube-time.js';

describe('parseTimestamp and isRfc3339', () => {
  it.each([
    ['2026-11-26T08:00:00Z', Date.UTC(2026, 10, 26, 8)],
    ['2026-11-26t08:00:00z', Date.UTC(2026, 10, 26, 8)],
    ['2026-11-26T09:00:00.5+01:00', Date.UTC(2026, 10, 26, 8, 0, 0, 500)],
    ['2096-02-29T00:00:00Z', Date.UTC(2096, 1, 29)],
    ['2000-02-29T00:00:00Z', Date.UTC(2000, 1, 29)],
    ['2026-12-31T23:59:59-23:59', Date.UTC(2027, 0, 1, 23, 58, 59)],
  ])('reads %s', (text, ms) => {
    expect(parseTimestamp(text)).toBe(ms);
    expect(isRfc3339(text)).toBe(true);
  });

  it.each([
    '2099-02-30T00:00:00Z', // Date.parse: 2 March
    '2099-02-29T00:00:00Z',
    '2100-02-29T00:00:00Z', // no leap day in a century not divisible by 400
    '2099-04-31T00:00:00Z',
    '2099-13-01T00:00:00Z',
    '2099-00-10T00:00:00Z',
    '2099-01-00T00:00:00Z',
    '2099-01-01T24:00:00Z', // Date.parse: the next day
    '2099-01-01T23:60:00Z',
    '2099-01-01T23:59:60Z', // a leap second
    '2099-01-01T00:00:00+24:00',
    '2099-01-01T00:00:00+01:60',
    '2099-01-01 00:00:00Z',
    '2099-01-01T00:00:00',
    '2099-01-01T00:00:00+0100',
    '2099-01-01',
  ])('refuses %s', (text) => {
    expect(parseTimestamp(text)).toBeUndefined();
    expect(isRfc3339(text)).toBe(false);
  });
});
