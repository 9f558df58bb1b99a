/**
 * Equality of values as their JSON: key order is ignored, array order is not, and a key holding
 * undefined counts as absent (it is never serialized). Pure.
 */

/** Whether `a` and `b` serialize to the same JSON, up to key order. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => jsonEqual(item, b[i]));
  }
  const left = definedEntries(a);
  const right = new Map(definedEntries(b));
  if (left.length !== right.size) return false;
  return left.every(([key, value]) => right.has(key) && jsonEqual(value, right.get(key)));
}

function definedEntries(object: object): [string, unknown][] {
  return Object.entries(object).filter(([, value]) => value !== undefined);
}
