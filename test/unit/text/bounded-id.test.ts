import { describe, expect, it } from 'vitest';
import { boundedId, MAX_RECORDED_JTI, recordedJti } from '../../../src/text/bounded-id.js';

describe('boundedId', () => {
  it('keeps an id within the bound as it is, and digests one past it', () => {
    const fits = 'a'.repeat(MAX_RECORDED_JTI);
    expect(recordedJti(fits)).toBe(fits);
    const long = `${fits}b`;
    expect(recordedJti(long)).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(recordedJti(long)).toBe(recordedJti(long));
    expect(recordedJti(long)).not.toBe(recordedJti(`${fits}c`));
    expect(boundedId('x'.repeat(11), 10).length).toBeLessThanOrEqual(71);
    expect(boundedId('short', 10)).toBe('short');
  });
});
