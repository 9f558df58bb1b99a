/**
 * Canonical JSON: object keys sorted by code unit, no whitespace, arrays in order, `undefined`
 * members left out. Two values equal as JSON always print the same text, whatever order their
 * keys were written in, so a digest over it names the value, not how it was built.
 */

/** The canonical JSON text of `value` (plain data: objects, arrays, strings, numbers, booleans, null). */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v ?? null)).join(',')}]`;
  const record = value as Record<string, unknown>;
  const members = Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
  return `{${members.join(',')}}`;
}
