/**
 * jsonEqual against its definition: two values are equal when their JSON is, up to key order
 * (a key holding undefined is absent, an array's undefined is null).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonEqual } from '../../../src/json/json-equal.js';

/** JSON with every object's keys sorted: equal exactly when jsonEqual should say so. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** Small JSON-like values with undefined fields, shuffled key orders and shared shapes. */
const value = fc.letrec((tie) => ({
  leaf: fc.oneof(fc.constantFrom('a', 'b', 0, 1, true, null), fc.constant(undefined)),
  node: fc.oneof(
    { depthSize: 'small' },
    tie('leaf'),
    fc.array(tie('node'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('x', 'y', 'z'), tie('node'), { maxKeys: 3 }),
  ),
})).node;

describe('jsonEqual', () => {
  it('says what the canonical JSON says, for any two values', () => {
    fc.assert(
      fc.property(value, value, (a, b) => {
        expect(jsonEqual(a, b)).toBe(canonical(a) === canonical(b));
      }),
      { numRuns: 2000 },
    );
  });

  it('ignores key order and keys holding undefined, not array order', () => {
    expect(jsonEqual({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1, gone: undefined }, { a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 1, gone: undefined })).toBe(true);
    expect(jsonEqual({ a: 1, b: undefined }, { a: 1, c: 2 })).toBe(false);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual({ a: null }, { a: undefined })).toBe(false);
    expect(jsonEqual([null], [undefined])).toBe(true);
    expect(jsonEqual([], {})).toBe(false);
  });

  it('takes own fields only, as JSON does', () => {
    const inherited = Object.create({ hidden: 1 }) as Record<string, unknown>;
    inherited.shown = 2;
    expect(jsonEqual(inherited, { shown: 2 })).toBe(true);
  });
});
