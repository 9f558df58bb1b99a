/**
 * One string instance per distinct short value across the Pipelines the gateway holds.
 *
 * Why: JSON parsing gives every string value its own copy, so each of 10,000 Pipelines held
 * its own "GitopsCluster", "flux-system", "helm.toolkit.fluxcd.io/v2", cluster and app names,
 * each about 7 times over (spec targets, status targets, conditions): about 40 strings, 1.5 KB
 * per Pipeline. Replacing a string by an equal one changes no value, so the objects can be
 * shared in place, even the watch cache's own.
 */

/** Strings longer than this are left alone: long values (messages) are rarely repeated. */
const MAX_SHARED_LENGTH = 128;
/** Distinct values remembered across objects; past it, values are shared within one object only. */
const MAX_TABLE_SIZE = 8192;

/** A table of shared strings; the catalog keeps one for the Pipelines it holds. */
export class StringTable {
  private readonly table = new Map<string, string>();

  constructor(private readonly maxSize = MAX_TABLE_SIZE) {}

  /** Number of distinct values remembered. */
  get size(): number {
    return this.table.size;
  }

  /**
   * Replaces, in place, every short string value inside `value` (objects and arrays, any depth)
   * with the table's instance of it; returns `value`. Frozen objects are left as they are.
   */
  share<T>(value: T): T {
    const local = new Map<string, string>();
    this.walk(value, local);
    return value;
  }

  private walk(value: unknown, local: Map<string, string>): void {
    if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
    const fields = value as Record<string, unknown>;
    for (const key of Object.keys(fields)) {
      const field = fields[key];
      if (typeof field === 'string') {
        if (field.length <= MAX_SHARED_LENGTH) fields[key] = this.instance(field, local);
      } else this.walk(field, local);
    }
  }

  private instance(text: string, local: Map<string, string>): string {
    const known = this.table.get(text) ?? local.get(text);
    if (known !== undefined) return known;
    if (this.table.size < this.maxSize) this.table.set(text, text);
    else local.set(text, text);
    return text;
  }
}
