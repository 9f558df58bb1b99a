/**
 * Equality of values as their JSON: key order is ignored, array order is not, a key holding
 * undefined counts as absent (it is never serialized) and an array's undefined as null. Pure,
 * and it allocates nothing: a status write compares a whole Pipeline status this way,
 * thousands of times a pass.
 */

/** Whether `a` and `b` serialize to the same JSON, up to key order. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i] ?? null, b[i] ?? null)) return false;
    return true;
  }
  return sameFields(a as Record<string, unknown>, b as Record<string, unknown>);
}

/** Own enumerable fields (as JSON.stringify takes them), those holding undefined left out. */
function sameFields(left: Record<string, unknown>, right: Record<string, unknown>): boolean {
  let unmatched = 0;
  for (const key in left) {
    const value = left[key];
    if (!Object.hasOwn(left, key) || value === undefined) continue;
    if (!Object.hasOwn(right, key) || !jsonEqual(value, right[key])) return false;
    unmatched += 1;
  }
  for (const key in right) {
    if (Object.hasOwn(right, key) && right[key] !== undefined) unmatched -= 1;
  }
  return unmatched === 0;
}
