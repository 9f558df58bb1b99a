/**
 * The ready side of a WorkQueue: keys waiting to run, grouped (e.g. by cluster) so that each
 * group has its own concurrency cap, and picked oldest first across the groups below their cap,
 * urgent keys before all others.
 */
import type { Group, ReadyEntry } from './queue-model.js';

/** Ready entries by group, with each group's running count. */
export class ReadyGroups<K> {
  private readonly groups = new Map<string, Group<K>>();
  private count = 0;

  /** `perGroup` caps how many keys of one group run at once. */
  constructor(private readonly perGroup: number) {}

  /** Number of ready entries. */
  get size(): number {
    return this.count;
  }

  /** Files a ready entry at the back of its group (of its urgent keys, when urgent). */
  add(entry: ReadyEntry<K>): void {
    const group = this.groupOf(entry.group);
    (entry.urgent ? group.urgent : group.ready).set(entry.id, entry);
    this.count++;
  }

  /** Makes a waiting entry urgent: it moves to the back of the urgent keys, as of `seq`. */
  hurry(entry: ReadyEntry<K>, seq: number): void {
    if (entry.urgent) return;
    this.remove(entry);
    entry.urgent = true;
    entry.seq = seq;
    this.add(entry);
  }

  /** Takes a ready entry out (it starts running or is dropped). */
  remove(entry: ReadyEntry<K>): void {
    const group = this.groups.get(entry.group);
    this.count--;
    if (group === undefined) return;
    group.ready.delete(entry.id);
    group.urgent.delete(entry.id);
    this.dropIfEmpty(entry.group, group);
  }

  /** The oldest urgent, else oldest ready entry among groups below their cap, or undefined. */
  next(): ReadyEntry<K> | undefined {
    return this.oldest('urgent') ?? this.oldest('ready');
  }

  private oldest(kind: 'urgent' | 'ready'): ReadyEntry<K> | undefined {
    let next: ReadyEntry<K> | undefined;
    for (const group of this.groups.values()) {
      if (group.running >= this.perGroup) continue;
      const head = group[kind].values().next();
      if (head.done === true) continue;
      if (next === undefined || head.value.seq < next.seq) next = head.value;
    }
    return next;
  }

  /** Counts a run of `group` as started. */
  started(group: string): void {
    this.groupOf(group).running++;
  }

  /** Counts a run of `group` as finished. */
  finished(group: string): void {
    const entry = this.groupOf(group);
    entry.running--;
    this.dropIfEmpty(group, entry);
  }

  private groupOf(name: string): Group<K> {
    let group = this.groups.get(name);
    if (group === undefined) {
      group = { running: 0, ready: new Map(), urgent: new Map() };
      this.groups.set(name, group);
    }
    return group;
  }

  private dropIfEmpty(name: string, group: Group<K>): void {
    if (group.running === 0 && group.ready.size === 0 && group.urgent.size === 0)
      this.groups.delete(name);
  }
}
