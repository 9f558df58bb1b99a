import { describe, expect, it } from 'vitest';
import { RunSpacing } from '../../../src/queue/run-spacing.js';

describe('RunSpacing', () => {
  it('holds a key back until the interval since its last start has passed', () => {
    const spacing = new RunSpacing(1_000);
    expect(spacing.notBefore('a', 0)).toBe(0);
    spacing.started('a', 0);
    expect(spacing.notBefore('a', 300)).toBe(1_000);
    expect(spacing.notBefore('a', 1_200)).toBe(1_200);
    expect(spacing.notBefore('b', 300)).toBe(300);
  });

  it('forgets starts that no longer hold anything back', () => {
    const remembered = new Map<string, number>();
    const spacing = new RunSpacing(1_000, remembered);
    for (let i = 0; i < 100; i++) spacing.started(`key-${String(i)}`, i * 10);
    expect(remembered.size).toBe(100);
    spacing.started('late', 5_000);
    expect(remembered.size).toBe(1);
    // A key started again moves to the back, so the sweep still stops at the first recent one.
    spacing.started('late', 5_500);
    spacing.started('other', 5_600);
    spacing.started('late', 6_550);
    expect(spacing.notBefore('other', 6_550)).toBe(6_600);
    expect(remembered.size).toBe(2);
  });

  it('does nothing with no interval', () => {
    const remembered = new Map<string, number>();
    const spacing = new RunSpacing(0, remembered);
    spacing.started('a', 0);
    expect(spacing.notBefore('a', 0)).toBe(0);
    expect(remembered.size).toBe(0);
  });
});
