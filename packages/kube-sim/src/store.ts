/**
 * The object store of one simulated cluster: objects per group/resource, the single monotonic
 * resourceVersion counter, a bounded per-resource event history (so a watch can resume from a
 * resourceVersion or get 410 Expired), and live subscribers. Semantics (validation,
 * generation, preconditions) live in objects.ts; this layer only stores and notifies.
 */
import type { SimObject } from './resources.js';

/** A change as watchers see it; `object` carries the resourceVersion of the change. */
export interface StoreEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  rv: number;
  object: SimObject;
  /** The object before a MODIFIED change, so selector watches can emit ADDED/DELETED. */
  previous?: SimObject;
}

/** Receives live events for one group/resource. */
export type StoreListener = (event: StoreEvent) => void;

interface ResourceHistory {
  events: StoreEvent[];
  /** Watches from a resourceVersion below this are too old (410 Expired). */
  oldestRv: number;
}

/** Namespace + name key inside one group/resource. */
function objectKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

function metaOf(obj: SimObject): Record<string, unknown> {
  const meta = obj.metadata;
  return typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>) : {};
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** In-memory storage with watch history; one per cluster. */
export class ObjectStore {
  private rv: number;
  private readonly objects = new Map<string, Map<string, SimObject>>();
  private readonly history = new Map<string, ResourceHistory>();
  private readonly listeners = new Map<string, Set<StoreListener>>();

  /**
   * @param historyLimit events kept per group/resource before the oldest are compacted away.
   * @param initialRv the counter's starting point (the first write gets initialRv + 1).
   */
  constructor(
    private readonly historyLimit = 1000,
    initialRv = 1000,
  ) {
    this.rv = initialRv;
  }

  /** The latest resourceVersion handed out in this cluster. */
  currentRv(): number {
    return this.rv;
  }

  /** The object stored under group/resource, namespace and name (a live reference; do not mutate). */
  get(gr: string, namespace: string, name: string): SimObject | undefined {
    return this.objects.get(gr)?.get(objectKey(namespace, name));
  }

  /** Objects of a group/resource in one namespace ('' = all), sorted by namespace then name. */
  list(gr: string, namespace: string): SimObject[] {
    const all = [...(this.objects.get(gr)?.entries() ?? [])];
    return all
      .filter(([key]) => namespace === '' || key.startsWith(`${namespace}/`))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, obj]) => obj);
  }

  /** Stores `obj` (stamping a new resourceVersion) and notifies watchers. Returns the stored object. */
  put(gr: string, obj: SimObject): SimObject {
    const meta = metaOf(obj);
    const key = objectKey(str(meta.namespace), str(meta.name));
    const bucket = this.objects.get(gr) ?? new Map<string, SimObject>();
    this.objects.set(gr, bucket);
    const previous = bucket.get(key);
    const rv = ++this.rv;
    const stored = { ...obj, metadata: { ...meta, resourceVersion: String(rv) } };
    bucket.set(key, stored);
    const event: StoreEvent =
      previous === undefined
        ? { type: 'ADDED', rv, object: stored }
        : { type: 'MODIFIED', rv, object: stored, previous };
    this.emit(gr, event);
    return stored;
  }

  /** Removes an object, emitting DELETED with a fresh resourceVersion. Returns the final object. */
  remove(gr: string, namespace: string, name: string): SimObject | undefined {
    const bucket = this.objects.get(gr);
    const key = objectKey(namespace, name);
    const previous = bucket?.get(key);
    if (bucket === undefined || previous === undefined) return undefined;
    bucket.delete(key);
    const rv = ++this.rv;
    const object = { ...previous, metadata: { ...metaOf(previous), resourceVersion: String(rv) } };
    this.emit(gr, { type: 'DELETED', rv, object });
    return object;
  }

  /** Drops every object of a group/resource (CRD deletion), emitting DELETED for each. */
  removeAll(gr: string): void {
    for (const obj of this.list(gr, '')) {
      const meta = metaOf(obj);
      this.remove(gr, str(meta.namespace), str(meta.name));
    }
  }

  /**
   * Events of a group/resource after `rv`, or 'expired' with the oldest resumable version when
   * history no longer reaches back that far.
   */
  eventsSince(gr: string, rv: number): StoreEvent[] | { expired: number } {
    const h = this.historyOf(gr);
    if (rv < h.oldestRv) return { expired: h.oldestRv };
    return h.events.filter((e) => e.rv > rv);
  }

  /** Forgets all history so any watch from an older resourceVersion gets 410 (for tests). */
  compact(gr?: string): void {
    const targets = gr === undefined ? [...this.history.keys()] : [gr];
    for (const key of targets) this.history.set(key, { events: [], oldestRv: this.rv });
    // Types never written yet still need a floor so old versions expire there too.
    if (gr === undefined) this.defaultOldest = this.rv;
  }

  /** Registers a live listener; returns the unsubscribe function. */
  subscribe(gr: string, listener: StoreListener): () => void {
    const set = this.listeners.get(gr) ?? new Set<StoreListener>();
    this.listeners.set(gr, set);
    set.add(listener);
    return () => set.delete(listener);
  }

  /**
   * Registers a controller for one group/resource: it sees each event after every watcher has,
   * so a write it makes in reply reaches watchers after the change it answers. Returns the
   * unsubscribe function.
   */
  react(gr: string, reactor: StoreListener): () => void {
    const set = this.reactors.get(gr) ?? new Set<StoreListener>();
    this.reactors.set(gr, set);
    set.add(reactor);
    return () => set.delete(reactor);
  }

  private readonly reactors = new Map<string, Set<StoreListener>>();
  private defaultOldest = 0;

  private historyOf(gr: string): ResourceHistory {
    let h = this.history.get(gr);
    if (h === undefined) {
      h = { events: [], oldestRv: this.defaultOldest };
      this.history.set(gr, h);
    }
    return h;
  }

  private emit(gr: string, event: StoreEvent): void {
    const h = this.historyOf(gr);
    h.events.push(event);
    while (h.events.length > this.historyLimit) {
      const dropped = h.events.shift();
      if (dropped !== undefined) h.oldestRv = dropped.rv;
    }
    for (const listener of [...(this.listeners.get(gr) ?? [])]) listener(event);
    for (const reactor of [...(this.reactors.get(gr) ?? [])]) reactor(event);
  }
}
