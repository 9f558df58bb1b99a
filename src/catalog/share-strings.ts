/**
 * One string instance per distinct short value across the Pipelines the gateway holds.
 *
 * Why: JSON parsing gives every string value its own copy, so each Pipeline held its own
 * "GitopsCluster", "flux-system", "helm.toolkit.fluxcd.io/v2", cluster and app names, and the
 * revisions and times its status repeats per target (docs/adr/0021-state-is-a-projection.md
 * gives the measured difference). observe() copies each Pipeline's strings through one table.
 */

/** Strings longer than this are left alone: long values (messages) are rarely repeated. */
const MAX_SHARED_LENGTH = 128;
/**
 * Distinct values in the table's newer half; the older half holds at most as many. Values seen
 * again move to the newer half, the rest are let go half by half.
 */
const MAX_TABLE_SIZE = 8192;

/**
 * A table of shared strings; the catalog keeps one for the Pipelines it holds. Two halves, so
 * that a fleet's many one-off values (uids, app names) cannot crowd out the ones that recur: a
 * value found in the older half moves to the newer one, and when the newer one is full it
 * becomes the older one and the older is dropped. (With one bounded half, a fleet of 10,000
 * Pipelines filled it with uids and names while loading, and the revisions and times written
 * later were copied per Pipeline again: about 100 bytes per target more.)
 */
export class StringTable {
  private newer = new Map<string, string>();
  private older = new Map<string, string>();

  constructor(private readonly maxSize = MAX_TABLE_SIZE) {}

  /** Number of distinct values remembered. */
  get size(): number {
    return this.newer.size + this.older.size;
  }

  /** The table's instance of `text` (`text` itself when new, or too long to be kept). */
  one(text: string): string {
    return text.length <= MAX_SHARED_LENGTH ? this.instance(text) : text;
  }

  private instance(text: string): string {
    const known = this.newer.get(text);
    if (known !== undefined) return known;
    const kept = this.older.get(text) ?? text;
    if (this.newer.size >= this.maxSize) {
      this.older = this.newer;
      this.newer = new Map();
    }
    this.newer.set(kept, kept);
    return kept;
  }
}
