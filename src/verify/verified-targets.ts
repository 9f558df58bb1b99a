/**
 * The verify stage's state: the latest verified status of every referenced app object, keyed by
 * its ObjectKey, and the reads that fill it. One read serves every Pipeline that references the
 * object; hints, re-checks, the confirmation before a promotion and the resync all read here.
 */
import type { CatalogTarget, ListScope } from '../catalog/targets.js';
import type { TargetStatus } from '../evaluate/types.js';
import { objectKeyId, type ObjectKey } from '../pipeline/object-key.js';
import type { Verifier } from './verifier.js';

/** A verified status and when it was read (ms since the epoch). */
export interface StoredStatus {
  status: TargetStatus;
  readAt: number;
}

/** Verified state of app objects, and the reads that refresh it. */
export class VerifiedTargets {
  private readonly entries = new Map<string, StoredStatus>();

  constructor(
    private readonly verifier: Verifier,
    private readonly now: () => number,
  ) {}

  /** The last read of an object, if any. */
  get(key: ObjectKey): StoredStatus | undefined {
    return this.entries.get(objectKeyId(key));
  }

  /** Number of objects held. */
  get size(): number {
    return this.entries.size;
  }

  /** One GET of the target's object; the status is stored and returned. */
  async read(target: CatalogTarget): Promise<TargetStatus> {
    const status = await this.verifier.readOne(target.key, target.ref);
    this.entries.set(objectKeyId(target.key), { status, readAt: this.now() });
    return status;
  }

  /** One GET per distinct object among `targets`, at once; resolves when all are stored. */
  async readAll(targets: readonly CatalogTarget[]): Promise<void> {
    const distinct = new Map(targets.map((t) => [objectKeyId(t.key), t]));
    await Promise.all([...distinct.values()].map((t) => this.read(t)));
  }

  /**
   * One LIST per scope, every scope at once; each target's status is stored. Resolves to the
   * number of targets found Unknown.
   */
  async readScopes(scopes: ReadonlyMap<ListScope, readonly CatalogTarget[]>): Promise<number> {
    const results = await Promise.all(
      [...scopes].map(([scope, targets]) => this.verifier.readScope(scope, targets)),
    );
    const readAt = this.now();
    let unknown = 0;
    for (const statuses of results) {
      for (const [target, status] of statuses) {
        this.entries.set(objectKeyId(target.key), { status, readAt });
        if (status.health === 'Unknown') unknown += 1;
      }
    }
    return unknown;
  }

  /** Forgets objects no Pipeline references any more (`isReferenced` takes objectKeyId). */
  retain(isReferenced: (id: string) => boolean): void {
    for (const id of this.entries.keys()) if (!isReferenced(id)) this.entries.delete(id);
  }
}
