import { describe, expect, it } from 'vitest';
import {
  DURATION_PATTERN,
  MAX_DURATION_MS,
  formatDuration,
  parseDuration,
} from '../../../src/time/duration.js';

describe('parseDuration (Flux duration syntax)', () => {
  it.each([
    ['0s', 0],
    ['30s', 30_000],
    ['30m', 1_800_000],
    ['1h30m', 5_400_000],
    ['24h', 86_400_000],
    ['1.5h', 5_400_000],
    ['250ms', 250],
    ['1m1s1ms', 61_001],
    ['0.0005s', 1],
    ['8760h', MAX_DURATION_MS],
  ])('reads %s as %i ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
    expect(DURATION_PATTERN.test(text)).toBe(true);
  });

  it.each(['', '30', '1d', '5us', '-5m', '1h 30m', 'm', '.5s', '1e3s', ' 5m', '5m\n'])(
    'refuses %j as the CRD pattern does',
    (text) => {
      expect(parseDuration(text)).toBeUndefined();
      expect(DURATION_PATTERN.test(text)).toBe(false);
    },
  );

  it('refuses what the pattern allows but is longer than a year, or too long to read', () => {
    expect(parseDuration('8760h1ms')).toBeUndefined();
    expect(parseDuration('99999999999999999999h')).toBeUndefined();
    expect(parseDuration('1s'.repeat(40))).toBeUndefined();
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [-5, '0s'],
    [250, '250ms'],
    [1_000, '1s'],
    [1_999, '1s'],
    [45_000, '45s'],
    [720_000, '12m'],
    [750_000, '12m30s'],
    [3_600_000, '1h'],
    [3_905_000, '1h5m5s'],
    [86_400_000, '24h'],
  ])('shows %i ms as %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it('reads back what it shows, for whole seconds', () => {
    for (const ms of [1_000, 59_000, 61_000, 3_599_000, 3_600_000, 90_061_000]) {
      expect(parseDuration(formatDuration(ms))).toBe(ms);
    }
  });
});
