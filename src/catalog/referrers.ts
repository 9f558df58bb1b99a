/**
 * The catalog's reverse index: for each object some Pipeline has a target on (by objectKeyId),
 * the Pipelines referencing it. A hint about an object is looked up here before any read.
 */
import type { PipelineId } from '../pipeline/id.js';

/**
 * The Pipelines referencing one object: most objects have exactly one, so that case is the id
 * itself rather than a Set (which costs about 150 bytes more per object at fleet scale).
 */
type Referrers = PipelineId | Set<PipelineId>;

/** Object ids to the Pipelines referencing them. Never holds an empty set. */
export class ReferrerIndex {
  private readonly byObject = new Map<string, Referrers>();

  /** Number of distinct objects referenced. */
  get size(): number {
    return this.byObject.size;
  }

  /** True when some Pipeline references the object with this objectKeyId; O(1). */
  has(objectId: string): boolean {
    return this.byObject.has(objectId);
  }

  /** Ids of the Pipelines referencing the object, sorted; empty when none. */
  of(objectId: string): PipelineId[] {
    const ids = this.byObject.get(objectId);
    if (ids === undefined) return [];
    return typeof ids === 'string' ? [ids] : [...ids].sort();
  }

  /** Records that Pipeline `id` references each of `targets`' objects. */
  link(id: PipelineId, targets: readonly { readonly id: string }[]): void {
    for (const t of targets) {
      const ids = this.byObject.get(t.id);
      if (ids === undefined || ids === id) this.byObject.set(t.id, id);
      else if (typeof ids === 'string') this.byObject.set(t.id, new Set([ids, id]));
      else ids.add(id);
    }
  }

  /** Records that Pipeline `id` no longer references `targets`' objects. */
  unlink(id: PipelineId, targets: readonly { readonly id: string }[]): void {
    for (const t of targets) {
      const ids = this.byObject.get(t.id);
      if (ids === undefined || typeof ids === 'string') {
        if (ids === id) this.byObject.delete(t.id);
        continue;
      }
      ids.delete(id);
      // Back to the single-referrer form when one is left (a Set never holds fewer than two).
      const [last] = ids;
      if (ids.size === 1 && last !== undefined) this.byObject.set(t.id, last);
    }
  }
}
