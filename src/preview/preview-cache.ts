/**
 * The previews this replica computed, by what each depends on (Pipeline, generation,
 * environment, revision and the strategy's own key: the pull request's base commit). A least
 * recently used bound keeps it small: a preview is cheap to make again, a forge read is not.
 */

/** How many previews a replica keeps. */
export const DEFAULT_PREVIEW_ENTRIES = 256;

/** A bounded least-recently-used map; `get` and `set` both make an entry the newest. */
export class PreviewCache<V> {
  private readonly entries = new Map<string, V>();

  constructor(readonly maxEntries = DEFAULT_PREVIEW_ENTRIES) {}

  /** The value under `key`, now the most recently used; undefined when not kept. */
  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  /** Keeps `value` under `key`, dropping the least recently used entries past the bound. */
  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done === true) break;
      this.entries.delete(oldest.value);
    }
  }

  /** How many entries are kept. */
  get size(): number {
    return this.entries.size;
  }
}

/** The cache key of a preview: its parts as one JSON array, so no part can pass for another. */
export function previewKey(parts: readonly (string | number)[]): string {
  return JSON.stringify(parts);
}
