import { describe, expect, it } from 'vitest';
import { StringTable } from '../../../src/catalog/share-strings.js';

/** A string equal to `text` but its own instance, as JSON.parse makes them. */
function fresh(text: string): string {
  return (JSON.parse(JSON.stringify({ text })) as { text: string }).text;
}

describe('StringTable', () => {
  it('gives one instance per distinct short value, equal to the value given', () => {
    const table = new StringTable();
    const first = table.one(fresh('GitopsCluster'));
    expect(first).toBe('GitopsCluster');
    expect(table.one(fresh('GitopsCluster'))).toBe(first);
    table.one('flux-system');
    expect(table.size).toBe(2);
  });

  it('skips long values: each stays its own, and the table does not grow', () => {
    const table = new StringTable();
    const long = 'x'.repeat(200);
    expect(table.one(long)).toBe(long);
    expect(table.size).toBe(0);
  });

  it('stays within its bound (two halves of it), keeping values seen again', () => {
    const table = new StringTable(5);
    table.one('recurring');
    for (let i = 0; i < 20; i++) {
      expect(table.one(`one-off-${String(i)}`)).toBe(`one-off-${String(i)}`);
      expect(table.size).toBeLessThanOrEqual(10);
      // A value found again moves to the newer half, so one-offs cannot crowd it out.
      table.one('recurring');
    }
    expect(table.size).toBeGreaterThan(5);
    const sizeBefore = table.size;
    table.one('recurring');
    expect(table.size).toBe(sizeBefore);
  });
});
