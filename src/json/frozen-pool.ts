/**
 * One deep-frozen instance per distinct JSON value among values kept for a long time and often
 * equal: the lists of environment names of a fleet's Pipelines (the catalog) and their latest
 * decisions (the reconciler's views). Why: parsed or built anew, each equal copy costs its
 * whole size again, and a fleet of thousands of Pipelines repeats the same few (every app
 * promoted alike: the same environments, the same "dev is healthy at 1.4.2 on 2 targets").
 */

/** FNV-1a of `text`'s UTF-16 units, as a non-negative 31-bit integer (a small integer in V8). */
export function textHash(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 1;
}

/** Freezes `value` and everything below it that is not frozen yet. */
export function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const field of Object.values(value)) deepFreeze(field);
}

/**
 * The pool: values keyed by a hash of their JSON, not the JSON (values that are all distinct
 * would otherwise keep a few hundred bytes of key each), a hit checked against the instance's
 * own JSON. Bounded: past `capacity` distinct values it starts afresh, so no value outlives its
 * holders for long; values whose JSON is longer than `maxJson` are not pooled.
 */
export class FrozenPool {
  private pool = new Map<number, unknown>();

  constructor(
    private readonly capacity: number,
    private readonly maxJson: number,
  ) {}

  /** Distinct values held now. */
  get size(): number {
    return this.pool.size;
  }

  /**
   * The pooled instance equal to `value` (as JSON), deep-frozen: `value` itself, frozen, when it
   * is the first; `value` as it is when it is frozen already or too long to pool.
   */
  one<T>(value: T): T {
    if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
    const json = JSON.stringify(value);
    if (json.length > this.maxJson) return value;
    const hash = textHash(json);
    const known = this.pool.get(hash);
    if (known !== undefined && JSON.stringify(known) === json) return known as T;
    // A different value under the same hash replaces it: the newer is the likelier to recur.
    if (known === undefined && this.pool.size >= this.capacity) this.pool = new Map();
    deepFreeze(value);
    this.pool.set(hash, value);
    return value;
  }
}
