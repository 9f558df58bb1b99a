/**
 * The verify stage's memory of each object it read: one plain record per object, by its
 * objectKeyId. The record's status shares its location with the catalog's target (a catalog
 * target is its own location) and its message with equal ones (verified-targets.ts), so what
 * a record holds of its own is its times, its streak and its scope's reference.
 */
import type { TargetStatus } from '../evaluate/decisions.js';
import type { ReadStreak } from '../evaluate/healthy-since.js';
import type { Observations } from './announcements.js';

/** One read as the caller hands it in and gets it back (see VerifiedTargets' StoredStatus). */
export interface StoredRead<Scope> extends Observations {
  readonly status: TargetStatus;
  readonly readAt: number;
  readonly scope?: Scope | undefined;
  readonly streak?: ReadStreak | undefined;
}

/** Stored reads by object id (objectKeyId); `Scope` is what a read remembers of its LIST. */
export class StoredReads<Scope> {
  private readonly reads = new Map<string, StoredRead<Scope>>();

  /** Number of objects held. */
  get size(): number {
    return this.reads.size;
  }

  /** The ids held; deleting the one just visited while iterating is safe (a Map's keys). */
  ids(): IterableIterator<string> {
    return this.reads.keys();
  }

  /** True when the object has a stored read. */
  has(id: string): boolean {
    return this.reads.has(id);
  }

  /** The latest verified status of the object, if read. */
  status(id: string): TargetStatus | undefined {
    return this.reads.get(id)?.status;
  }

  /** When the object was last read (ms), if ever. */
  readAt(id: string): number | undefined {
    return this.reads.get(id)?.readAt;
  }

  /** The LIST that read the object last, if a LIST did. */
  scope(id: string): Scope | undefined {
    return this.reads.get(id)?.scope;
  }

  /** The object's read streak, if it has one. */
  streak(id: string): ReadStreak | undefined {
    return this.reads.get(id)?.streak;
  }

  /** Everything stored of the object (the record set last: never to be changed), if read. */
  get(id: string): StoredRead<Scope> | undefined {
    return this.reads.get(id);
  }

  /** Stores `read` as the object's, replacing what was there; `read` is kept as given. */
  set(id: string, read: StoredRead<Scope>): void {
    this.reads.set(id, read);
  }

  /** Forgets the object. */
  delete(id: string): void {
    this.reads.delete(id);
  }
}
