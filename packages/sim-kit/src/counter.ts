/**
 * Counting requests by shape: one map entry per distinct record, so a long benchmark costs one
 * map update per request, and tests read counts whatever the simulator answered.
 */

/** Counts records of type `R`; two records are the same shape when `keyOf` says so. */
export class ShapeCounter<R extends object> {
  private readonly counts = new Map<string, { record: R; count: number }>();

  constructor(private readonly keyOf: (record: R) => string) {}

  /** Counts one record (a copy is kept, so the caller may reuse its object). */
  record(r: R): void {
    const key = this.keyOf(r);
    const entry = this.counts.get(key);
    if (entry === undefined) this.counts.set(key, { record: { ...r }, count: 1 });
    else entry.count++;
  }

  /** How many records `matches` accepts (every record without it). */
  count(matches: (record: R) => boolean = () => true): number {
    let n = 0;
    for (const { record, count } of this.counts.values()) if (matches(record)) n += count;
    return n;
  }

  /**
   * Counts summed by `keyOf(record)` (a record it gives no key for is left out), on top of
   * `zeros` so that keys nobody hit still show 0.
   */
  tally<K extends string>(
    keyOf: (record: R) => K | undefined,
    zeros = {} as Record<K, number>,
  ): Record<K, number> {
    const sums: Partial<Record<K, number>> = { ...zeros };
    for (const { record, count } of this.counts.values()) {
      const key = keyOf(record);
      if (key !== undefined) sums[key] = (sums[key] ?? 0) + count;
    }
    return sums as Record<K, number>;
  }

  /** Every distinct shape with its count since the last reset, in first-seen order. */
  entries(): (R & { count: number })[] {
    return [...this.counts.values()].map(({ record, count }) => ({ ...record, count }));
  }

  /** Forgets all counts. */
  reset(): void {
    this.counts.clear();
  }
}
