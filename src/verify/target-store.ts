import type { TargetStatus } from '../evaluate/types.js';
import { hintKeyString, type HintKey } from '../hints/types.js';

/** A verified status and when it was read (ms since the epoch). */
export interface StoredStatus {
  status: TargetStatus;
  readAt: number;
}

/**
 * The latest verified status of every referenced app object, keyed by its HintKey. One read
 * serves every Pipeline that references the object.
 */
export class TargetStore {
  private readonly entries = new Map<string, StoredStatus>();

  /** Records a read. */
  set(key: HintKey, status: TargetStatus, readAt: number): void {
    this.entries.set(hintKeyString(key), { status, readAt });
  }

  /** The last read of an object, if any. */
  get(key: HintKey): StoredStatus | undefined {
    return this.entries.get(hintKeyString(key));
  }

  /** Forgets objects no Pipeline references any more. */
  retain(isReferenced: (keyString: string) => boolean): void {
    for (const key of this.entries.keys()) if (!isReferenced(key)) this.entries.delete(key);
  }

  /** Number of objects held. */
  get size(): number {
    return this.entries.size;
  }
}
