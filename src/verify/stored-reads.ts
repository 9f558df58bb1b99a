/**
 * The verify stage's memory of each object it read, in columns: one slot per object, its times
 * and flags in one array of doubles and its references in another, each `slot * width` on.
 * Why: kept as an entry, a streak and boxed numbers, an object cost about 190 bytes of heap
 * besides its map entry and status (measured at 1,000 x 20); in columns about 95, and a fleet
 * of 60,000 targets keeps one per target. The status too is kept as its fields (its health a
 * flag), not as an object of 64 bytes: status() builds one when asked. The columns are plain
 * arrays, not typed ones, so that they count in the heap like everything else (an array of
 * doubles holds them unboxed, 8 bytes each).
 */
import type { TargetHealth, TargetLocation, TargetStatus } from '../evaluate/decisions.js';
import type { ReadStreak } from '../evaluate/healthy-since.js';
import type { Observations } from './announcements.js';
import { SlotExtras } from './slot-extras.js';

/** One read as the caller hands it in and gets it back (see VerifiedTargets' StoredStatus). */
export interface StoredRead<Scope> extends Observations {
  status: TargetStatus;
  readAt: number;
  scope?: Scope | undefined;
  streak?: ReadStreak | undefined;
}

/**
 * The times kept per slot, in this order; NaN stands for absent. When the object was last seen
 * (`seenAt`) is nearly always when it was last read: a flag says so (else it is kept apart).
 */
const READ_AT = 0;
const SINCE = 1;
const HEALTHY_SINCE = 2;
const BROKEN_AT = 3;
/** The flag bits below, as a double. */
const FLAGS = 4;
const NUMBERS = 5;

/**
 * Flag bits per slot: whether `unannounced` and a streak are present, and their values;
 * whether the settled status is the status itself, the streak's healthy revision the status's
 * revision, and the time last seen the time last read (nearly always: else each is kept
 * apart); the status's health (HEALTHS, two bits at HEALTH_SHIFT).
 */
const UNANNOUNCED_SET = 1;
const UNANNOUNCED = 2;
const HAS_STREAK = 4;
const SETTLED_IS_STATUS = 8;
const HEALTHY_AT_REVISION = 64;
const SEEN_AT_READ = 128;
const HEALTH_SHIFT = 4;
const HEALTHS: readonly TargetHealth[] = ['Healthy', 'Unhealthy', 'Unknown'];

/**
 * References kept per slot, in this order: the status's fields, then its LIST's scope. Not its
 * location: that follows from the object (its cluster and namespace), so the caller, who names
 * the object, gives it (a catalog target is its own location: nothing is built).
 */
const REASON = 0;
const MESSAGE = 1;
const REVISION = 2;
const SCOPE = 3;
const REFS = 4;

const FIRST_CAPACITY = 64;

/**
 * Columns grow by a quarter: doubling leaves about a quarter of them unused on average, this
 * about a tenth (at 80 bytes per slot, some 12 bytes per target less); the copies it costs
 * more are made once, while a fleet loads.
 */
function grown(capacity: number): number {
  return Math.ceil(capacity * 1.25);
}

/** Stored reads by object id (objectKeyId); `Scope` is what a read remembers of its LIST. */
export class StoredReads<Scope> {
  private readonly slots = new Map<string, number>();
  private readonly free: number[] = [];
  private used = 0;
  private capacity = FIRST_CAPACITY;
  /** NUMBERS doubles per slot: its times (NaN for absent) and flags. */
  private numbers: number[] = doubles(FIRST_CAPACITY * NUMBERS);
  /** REFS references per slot: the status's fields and the scope. */
  private refs: unknown[] = new Array<unknown>(FIRST_CAPACITY * REFS).fill(undefined);
  /** By slot, the few values that differ from what the columns hold (slot-extras.ts). */
  private readonly extras = new SlotExtras();

  /** Number of objects held. */
  get size(): number {
    return this.slots.size;
  }

  /** The ids held; deleting the one just visited while iterating is safe (a Map's keys). */
  ids(): IterableIterator<string> {
    return this.slots.keys();
  }

  /** True when the object has a stored read. */
  has(id: string): boolean {
    return this.slots.has(id);
  }

  /** The latest verified status of the object at `location` (a new object), if read. */
  status(id: string, location: TargetLocation): TargetStatus | undefined {
    const slot = this.slots.get(id);
    return slot === undefined ? undefined : this.statusAt(slot, location);
  }

  /** When the object was last read (ms), if ever. */
  readAt(id: string): number | undefined {
    const slot = this.slots.get(id);
    return slot === undefined ? undefined : this.numbers[slot * NUMBERS + READ_AT];
  }

  /** The LIST that read the object last, if a LIST did. */
  scope(id: string): Scope | undefined {
    const slot = this.slots.get(id);
    return slot === undefined ? undefined : (this.refs[slot * REFS + SCOPE] as Scope | undefined);
  }

  /** The object's read streak (a new object each call), if it has one. */
  streak(id: string): ReadStreak | undefined {
    const slot = this.slots.get(id);
    return slot === undefined ? undefined : this.streakAt(slot);
  }

  /**
   * Everything stored of the object at `location`, as one new object; undefined when never
   * read.
   */
  get(id: string, location: TargetLocation): StoredRead<Scope> | undefined {
    const slot = this.slots.get(id);
    const status = slot === undefined ? undefined : this.statusAt(slot, location);
    if (slot === undefined || status === undefined) return undefined;
    const base = slot * NUMBERS;
    const flags = this.numbers[base + FLAGS] ?? 0;
    return {
      status,
      readAt: this.numbers[base + READ_AT] ?? Number.NaN,
      scope: this.refs[slot * REFS + SCOPE] as Scope | undefined,
      streak: this.streakAt(slot),
      settled: this.settledAt(slot, status),
      seenAt:
        (flags & SEEN_AT_READ) !== 0 ? this.numbers[base + READ_AT] : this.extras.seenAt(slot),
      since: present(this.numbers[base + SINCE]),
      unannounced: (flags & UNANNOUNCED_SET) === 0 ? undefined : (flags & UNANNOUNCED) !== 0,
    };
  }

  /** Stores `read` as the object's, replacing what was there. */
  set(id: string, read: StoredRead<Scope>): void {
    const slot = this.slotFor(id);
    const base = slot * NUMBERS;
    const { streak, unannounced } = read;
    const at = slot * REFS;
    const { status, settled } = read;
    const settledIsStatus = settled !== undefined && sameStatus(settled, status);
    const healthy = streak?.healthyRevision;
    const healthyAtRevision = healthy !== undefined && healthy === status.revision;
    this.refs[at + REASON] = status.reason;
    this.refs[at + MESSAGE] = status.message;
    this.refs[at + REVISION] = status.revision;
    this.refs[at + SCOPE] = read.scope;
    const seenAtRead = read.seenAt === read.readAt;
    this.extras.set(slot, {
      settled: settledIsStatus ? undefined : settled,
      healthy: healthyAtRevision ? undefined : healthy,
      seenAt: seenAtRead ? undefined : read.seenAt,
    });
    this.numbers[base + READ_AT] = read.readAt;
    this.numbers[base + SINCE] = read.since ?? Number.NaN;
    this.numbers[base + HEALTHY_SINCE] = streak?.healthySince ?? Number.NaN;
    this.numbers[base + BROKEN_AT] = streak?.brokenAt ?? Number.NaN;
    this.numbers[base + FLAGS] =
      (unannounced === undefined ? 0 : UNANNOUNCED_SET) |
      (unannounced === true ? UNANNOUNCED : 0) |
      (streak === undefined ? 0 : HAS_STREAK) |
      (settledIsStatus ? SETTLED_IS_STATUS : 0) |
      (healthyAtRevision ? HEALTHY_AT_REVISION : 0) |
      (seenAtRead ? SEEN_AT_READ : 0) |
      (HEALTHS.indexOf(status.health) << HEALTH_SHIFT);
  }

  /** Forgets the object; its slot is reused by the next one stored. */
  delete(id: string): void {
    const slot = this.slots.get(id);
    if (slot === undefined) return;
    this.slots.delete(id);
    // The references go now, so nothing they hold waits for the slot's next use.
    this.refs.fill(undefined, slot * REFS, (slot + 1) * REFS);
    this.extras.set(slot, {});
    this.free.push(slot);
  }

  /** The status of a slot in use, built in one literal (the key order of target-status.ts). */
  private statusAt(slot: number, location: TargetLocation): TargetStatus | undefined {
    const at = slot * REFS;
    // Every status has a reason: none means the slot holds no read.
    if (this.refs[at + REASON] === undefined) return undefined;
    const flags = this.numbers[slot * NUMBERS + FLAGS] ?? 0;
    const health = HEALTHS[(flags >> HEALTH_SHIFT) & 3] ?? 'Unknown';
    const reason = this.refs[at + REASON] as string;
    const message = this.refs[at + MESSAGE] as string;
    const revision = this.refs[at + REVISION] as string | undefined;
    return revision === undefined
      ? { location, health, reason, message }
      : { location, health, reason, message, revision };
  }

  private settledAt(slot: number, status: TargetStatus): TargetStatus | undefined {
    const flags = this.numbers[slot * NUMBERS + FLAGS] ?? 0;
    if ((flags & SETTLED_IS_STATUS) !== 0) return status;
    return this.extras.settled(slot);
  }

  private streakAt(slot: number): ReadStreak | undefined {
    const base = slot * NUMBERS;
    const flags = this.numbers[base + FLAGS] ?? 0;
    if ((flags & HAS_STREAK) === 0) return undefined;
    const healthyRevision =
      (flags & HEALTHY_AT_REVISION) !== 0
        ? (this.refs[slot * REFS + REVISION] as string | undefined)
        : this.extras.healthy(slot);
    const healthySince = present(this.numbers[base + HEALTHY_SINCE]);
    const brokenAt = present(this.numbers[base + BROKEN_AT]);
    return {
      ...(healthyRevision === undefined ? {} : { healthyRevision }),
      ...(healthySince === undefined ? {} : { healthySince }),
      ...(brokenAt === undefined ? {} : { brokenAt }),
    };
  }

  private slotFor(id: string): number {
    const held = this.slots.get(id);
    if (held !== undefined) return held;
    const slot = this.free.pop() ?? this.used++;
    if (slot >= this.capacity) this.grow();
    this.slots.set(id, slot);
    return slot;
  }

  /**
   * Gives back the room the columns grew ahead (up to a fifth of them): for once a pass's reads
   * are in, when the fleet is as large as it will be for a while. Free slots below `used` stay.
   */
  trim(): void {
    const capacity = Math.max(this.used, FIRST_CAPACITY);
    if (capacity < this.capacity) this.resize(capacity);
  }

  private grow(): void {
    this.resize(grown(this.capacity));
  }

  /** Copies the columns into ones of `capacity` slots (at least `used`). */
  private resize(capacity: number): void {
    const refs = new Array<unknown>(capacity * REFS).fill(undefined);
    const keptRefs = Math.min(this.refs.length, refs.length);
    for (let i = 0; i < keptRefs; i++) refs[i] = this.refs[i];
    this.refs = refs;
    const numbers = doubles(capacity * NUMBERS);
    const keptNumbers = Math.min(this.numbers.length, numbers.length);
    for (let i = 0; i < keptNumbers; i++) numbers[i] = this.numbers[i] ?? Number.NaN;
    this.numbers = numbers;
    this.capacity = capacity;
  }
}

/** An array of `length` NaNs, which V8 keeps as unboxed doubles. */
function doubles(length: number): number[] {
  return new Array<number>(length).fill(Number.NaN);
}

/** Whether two statuses say the same in every field. */
function sameStatus(a: TargetStatus, b: TargetStatus): boolean {
  return (
    a.health === b.health &&
    a.reason === b.reason &&
    a.message === b.message &&
    a.revision === b.revision &&
    a.location.cluster === b.location.cluster &&
    a.location.namespace === b.location.namespace
  );
}

function present(n: number | undefined): number | undefined {
  return n === undefined || Number.isNaN(n) ? undefined : n;
}
