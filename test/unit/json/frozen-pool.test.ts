import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FrozenPool } from '../../../src/json/frozen-pool.js';

const decision = (revision: string) => [
  {
    environment: 'dev',
    outcome: 'NoPromotion',
    reason: 'FirstEnvironment',
    message: 'dev is first',
  },
  {
    environment: 'prod',
    outcome: 'UpToDate',
    revision,
    reason: 'AlreadyRunning',
    message: `prod runs ${revision}`,
  },
];

describe('FrozenPool', () => {
  it('hands out one deep-frozen instance per distinct value', () => {
    const pool = new FrozenPool(16, 4096);
    const first = pool.one(decision('1.0.0'));
    expect(pool.one(decision('1.0.0'))).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first[1])).toBe(true);
    const other = pool.one(decision('1.1.0'));
    expect(other).not.toBe(first);
    expect(other[1]?.revision).toBe('1.1.0');
    expect(pool.size).toBe(2);
  });

  it('never answers a value with a different JSON', () => {
    const pool = new FrozenPool(64, 4096);
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { maxLength: 20 }), (values) => {
        for (const value of values) {
          const wanted = JSON.stringify(value);
          expect(JSON.stringify(pool.one(structuredClone(value)))).toBe(wanted);
        }
      }),
    );
  });

  it('leaves values too long or already frozen as they are, and starts afresh when full', () => {
    const pool = new FrozenPool(2, 64);
    const long = { message: 'x'.repeat(100) };
    expect(pool.one(long)).toBe(long);
    expect(Object.isFrozen(long)).toBe(false);
    const frozen = Object.freeze({ a: 1 });
    expect(pool.one(frozen)).toBe(frozen);
    const a = pool.one({ a: 1 });
    pool.one({ b: 2 });
    expect(pool.one({ a: 1 })).toBe(a);
    pool.one({ c: 3 });
    // The pool held two values: the third started a new pool, so { a: 1 } is pooled anew.
    expect(pool.one({ a: 1 })).not.toBe(a);
    expect(pool.size).toBe(2);
  });
});
