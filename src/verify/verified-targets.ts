/**
 * The verify stage's state: the latest verified status of every referenced app object, keyed by
 * its ObjectKey, and the reads that fill it. One read serves every Pipeline that references the
 * object; hints, re-checks, the confirmation before a promotion and the resync all read here.
 * It also keeps what says whether an object's change was announced by an event
 * (announcements.ts): when events about each object were accepted, and its observations.
 */
import type { CatalogTarget, ListScope } from '../catalog/targets.js';
import type { TargetLocation, TargetStatus } from '../evaluate/decisions.js';
import { advanceStreak, type ReadStreak } from '../evaluate/healthy-since.js';
import { objectKeyId, type ObjectKey } from '../pipeline/object-key.js';
import { TextPool } from '../text/text.js';
import { announcementOf, observe, type Announcement } from './announcements.js';
import { ListLimits } from './list-limits.js';
import { isClusterWide, planScopes, refusedWide } from './scope-plan.js';
import { StoredReads, type StoredRead } from './stored-reads.js';
import type { Verifier } from './verifier.js';

/**
 * Stale targets of one scope at or above this many, and confirming them re-LISTs the scope
 * (one request refreshes all its targets for every confirmation that follows) instead of GETting
 * each: after a pass, its promotion wave then costs a LIST per scope, not a GET per target.
 */
export const RELIST_FROM = 4;

/** One scope as a pass LISTed it: what a confirmation re-LISTs to refresh a target of it. */
export interface ScopeRead {
  readonly scope: ListScope;
  readonly targets: readonly CatalogTarget[];
  /** The re-LIST in flight, shared by every confirmation that needs it. */
  relisting?: Promise<void> | undefined;
}

/**
 * A verified status, when it was read (ms since the epoch), the LIST that read it last, what
 * announcements.ts keeps of the object's observations, and the run of healthy reads a soak
 * counts (evaluate/healthy-since.ts).
 */
export type StoredStatus = StoredRead<ScopeRead>;

/** A target as the accessors take it: its objectKeyId (computed once) and location. */
export type TargetId = Pick<CatalogTarget, 'id' | 'location'>;

/** A settled change a detection pass found, with no event about the object since it was seen. */
export interface FoundChange {
  target: CatalogTarget;
  /** The settled state last seen here, and the one found now. */
  previous: TargetStatus;
  status: TargetStatus;
}

/** What a detecting pass hands readScopes: see resync/unannounced.ts. */
export interface ChangeDetection {
  /** Whether `status` is the first observation anywhere: no Pipeline status shows it yet. */
  firstObserved(target: CatalogTarget, status: TargetStatus): boolean;
  /** Receives each unannounced change found; its object is marked `unannounced` too. */
  readonly found: FoundChange[];
}

/** What readScopes did: the LISTs it made (each scope once, however many pages) and Unknowns. */
export interface ScopesRead {
  scopes: number;
  /** Targets found Unknown. */
  unknown: number;
}

/** Verified state of app objects, and the reads that refresh it. */
export class VerifiedTargets {
  private readonly entries = new StoredReads<ScopeRead>();
  private readonly limits = new ListLimits();
  /** Clusters whose RBAC refused a cluster-wide LIST: read per namespace from then on. */
  private readonly perNamespaceOnly = new Set<string>();
  /** Messages and revisions of the statuses kept: objects at one revision often say the same. */
  private readonly texts = new TextPool();
  /** When an event about each object was last accepted here (referenced objects only). */
  private readonly eventAt = new Map<string, number>();

  constructor(
    private readonly verifier: Verifier,
    private readonly now: () => number,
  ) {}

  /** The last read of an object, if any, as one new object (see status and readAt). */
  get(key: ObjectKey): StoredStatus | undefined {
    return this.entries.get(objectKeyId(key));
  }

  /** The target's latest verified status, if it was read. */
  status(target: TargetId): TargetStatus | undefined {
    return this.entries.status(target.id);
  }

  /** When the target was last read (ms), if ever. */
  readAt(target: TargetId): number | undefined {
    return this.entries.readAt(target.id);
  }

  /** The target's run of healthy reads as a soak counts it (a new object), if read. */
  streak(target: TargetId): ReadStreak | undefined {
    return this.entries.streak(target.id);
  }

  /** Number of objects held. */
  get size(): number {
    return this.entries.size;
  }

  /** Notes that an event (or legacy call) about the object was accepted now. */
  noteEvent(key: ObjectKey): void {
    this.eventAt.set(objectKeyId(key), this.now());
  }

  /** This replica's word on whether the object's current state was announced by an event. */
  announcement(key: ObjectKey): Announcement | undefined {
    const id = objectKeyId(key);
    return announcementOf(this.entries.get(id), this.eventAt.get(id));
  }

  /** One GET of the target's object; the status is stored and returned. */
  async read(target: CatalogTarget): Promise<TargetStatus> {
    const read = await this.verifier.readOne(target);
    return this.keep(target, read, this.now(), this.entries.scope(target.id));
  }

  /**
   * Reads `targets` again (the confirmation before a promotion): by one shared re-LIST of
   * their scope where the last pass listed at least RELIST_FROM of them together, else by GET.
   */
  async reread(targets: readonly CatalogTarget[]): Promise<void> {
    const gets: CatalogTarget[] = [];
    const relists = new Set<ScopeRead>();
    for (const t of targets) {
      const read = this.entries.scope(t.id);
      if (read !== undefined && read.targets.length >= RELIST_FROM) relists.add(read);
      else gets.push(t);
    }
    await Promise.all([this.readAll(gets), ...[...relists].map((r) => this.relist(r, targets))]);
  }

  private relist(read: ScopeRead, wanted: readonly CatalogTarget[]): Promise<void> {
    read.relisting ??= this.listLimited(read.scope, read.targets)
      .then(async (statuses) => {
        if (!isClusterWide(read.scope) || !refusedWide(statuses)) {
          this.store(statuses, read);
          return;
        }
        // RBAC changed since the pass: from now on per namespace; for now, GET what is needed.
        this.perNamespaceOnly.add(read.scope.cluster);
        await this.readAll(wanted.filter((t) => read.targets.includes(t)));
      })
      .finally(() => {
        read.relisting = undefined;
      });
    return read.relisting;
  }

  /** One GET per distinct object among `targets`, at once; resolves when all are stored. */
  async readAll(targets: readonly CatalogTarget[]): Promise<void> {
    const distinct = new Map(targets.map((t) => [t.id, t]));
    await Promise.all([...distinct.values()].map((t) => this.read(t)));
  }

  /**
   * Reads every target in `targets` by paged LISTs (see planScopes: one per scope, one per
   * cluster and kind where a cluster holds many namespaces), within the LISTs in flight per
   * cluster and in all (list-limits.ts); each target's status is stored as its LIST
   * completes. A cluster that refuses a cluster-wide LIST is read per namespace, now and in
   * later passes. With `detect`, settled changes no event announced are reported there.
   */
  async readScopes(
    targets: Iterable<CatalogTarget>,
    detect?: ChangeDetection,
  ): Promise<ScopesRead> {
    const plan = this.plan(targets);
    this.limits.spreadOver(new Set([...plan.keys()].map((scope) => scope.cluster)));
    return this.readPlan(plan, detect);
  }

  private plan(targets: Iterable<CatalogTarget>): Map<ListScope, CatalogTarget[]> {
    return planScopes(targets, (cluster) => this.perNamespaceOnly.has(cluster));
  }

  private async readPlan(
    plan: Map<ListScope, CatalogTarget[]>,
    detect?: ChangeDetection,
  ): Promise<ScopesRead> {
    const reads = await Promise.all(
      [...plan].map(async ([scope, listed]): Promise<ScopesRead> => {
        const statuses = await this.listLimited(scope, listed);
        if (isClusterWide(scope) && refusedWide(statuses)) {
          this.perNamespaceOnly.add(scope.cluster);
          const narrowed = await this.readPlan(this.plan(listed), detect);
          return { scopes: narrowed.scopes + 1, unknown: narrowed.unknown };
        }
        return { scopes: 1, unknown: this.store(statuses, { scope, targets: listed }, detect) };
      }),
    );
    return reads.reduce(
      (sum, r) => ({
        scopes: sum.scopes + r.scopes,
        unknown: sum.unknown + r.unknown,
      }),
      { scopes: 0, unknown: 0 },
    );
  }

  private listLimited(
    scope: ListScope,
    targets: readonly CatalogTarget[],
  ): Promise<Map<CatalogTarget, TargetStatus>> {
    return this.limits.run(scope.cluster, () => this.verifier.readScope(scope, targets));
  }

  private store(
    statuses: ReadonlyMap<CatalogTarget, TargetStatus>,
    scope: ScopeRead,
    detect?: ChangeDetection,
  ): number {
    const readAt = this.now();
    let unknown = 0;
    for (const [target, read] of statuses) {
      const status = this.keep(target, read, readAt, scope, detect);
      if (status.health === 'Unknown') unknown += 1;
    }
    return unknown;
  }

  /**
   * Stores one read with its observations; under `detect`, a settled change that no event here
   * announced and no Pipeline status shows yet is marked and reported. Returns the stored status.
   */
  private keep(
    target: CatalogTarget,
    read: TargetStatus,
    readAt: number,
    scope: ScopeRead | undefined,
    detect?: ChangeDetection,
  ): TargetStatus {
    const previous = this.entries.get(target.id);
    const status = unchanged(previous, read, target.location, this.texts);
    const { observations, replaced } = observe(previous, status, readAt);
    const streak = advanceStreak(previous?.streak, status, readAt, previous?.readAt);
    const found =
      replaced !== undefined &&
      detect !== undefined &&
      announcementOf(observations, this.eventAt.get(target.id)) !== 'announced' &&
      detect.firstObserved(target, status);
    if (found) detect.found.push({ target, previous: replaced, status });
    this.entries.set(target.id, {
      status,
      readAt,
      scope,
      streak,
      settled: observations.settled,
      seenAt: observations.seenAt,
      since: observations.since,
      unannounced: found || observations.unannounced,
    });
    return status;
  }

  /** Forgets what no Pipeline references (`isReferenced` takes objectKeyId). */
  retain(isReferenced: (id: string) => boolean): void {
    for (const id of this.entries.ids()) if (!isReferenced(id)) this.entries.delete(id);
    for (const id of this.eventAt.keys()) if (!isReferenced(id)) this.eventAt.delete(id);
  }
}

/**
 * The stored status when `read` says the same, else `read` at `location` (the target's own,
 * which `read`'s equals) with its message and revision from `texts`. Why: every pass reads
 * every target again; keeping the stored fields means an unchanged fleet holds one message
 * string per target, not one per pass, equal messages and revisions one string each (the
 * targets of an environment run one revision; parsed, each held its own, which its read streak
 * held too), and no location object of its own.
 */
function unchanged(
  previous: StoredStatus | undefined,
  read: TargetStatus,
  location: TargetLocation,
  texts: TextPool,
): TargetStatus {
  const stored = previous?.status;
  if (
    stored?.health === read.health &&
    stored.reason === read.reason &&
    stored.message === read.message &&
    stored.revision === read.revision &&
    stored.location.cluster === read.location.cluster &&
    stored.location.namespace === read.location.namespace
  )
    return stored;
  const at =
    read.location.cluster === location.cluster && read.location.namespace === location.namespace
      ? location
      : read.location;
  const revision = read.revision === undefined ? {} : { revision: texts.one(read.revision) };
  return { ...read, location: at, message: texts.one(read.message), ...revision };
}
