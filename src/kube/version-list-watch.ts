/**
 * The catalog's feed: a LIST, then a WATCH from the LIST's resourceVersion, as client-node's
 * informer runs them (its public `Watch`, the same requests), without the informer's cache of
 * objects. The catalog is the one cache of the Pipelines: it keeps each one's state (observe()),
 * so a cache of the objects as the API server sent them would be a second copy of each. This
 * remembers each object's resourceVersion only: to tell an add from an update, to skip an event
 * that repeats the version held, and to report what a LIST after a gap no longer shows.
 */
import {
  Watch,
  type ErrorCallback,
  type Informer,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  type ObjectCallback,
} from '@kubernetes/client-node';

/** The WATCH request, as client-node's `Watch` makes it (a fake in tests). */
export type WatchRequest = Pick<Watch, 'watch'>;

type ObjectVerb = 'add' | 'update' | 'delete' | 'change';
type StateVerb = 'error' | 'connect';

/** "namespace/name" of an object: how the versions are kept. */
function keyOf(obj: KubernetesObject): string {
  return `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;
}

/** An object known by its key alone: what a delete found by a LIST reports. */
function objectOfKey(key: string): KubernetesObject {
  const slash = key.indexOf('/');
  return { metadata: { namespace: key.slice(0, slash), name: key.slice(slash + 1) } };
}

/** True for the API server's "too old resource version" (410 Gone): a LIST must come first. */
function isGone(err: unknown): boolean {
  const e = err as { statusCode?: unknown; code?: unknown } | null;
  return e?.statusCode === 410 || e?.code === 410;
}

/**
 * An Informer (client-node's interface: add, update, delete, error and connect events; start
 * and stop) that keeps no objects. Events carry the object as received, which the listener may
 * keep or drop: nothing here holds it. A failed LIST or WATCH is reported through 'error' and
 * not retried here (the caller restarts it, as with client-node's informer).
 */
export class VersionListWatch implements Informer<KubernetesObject> {
  private readonly versions = new Map<string, string>();
  private readonly objectCallbacks = {
    add: [] as ObjectCallback<KubernetesObject>[],
    update: [] as ObjectCallback<KubernetesObject>[],
    delete: [] as ObjectCallback<KubernetesObject>[],
  };
  private readonly stateCallbacks = {
    error: [] as ErrorCallback[],
    connect: [] as ErrorCallback[],
  };
  private resourceVersion = '';
  private request: AbortController | undefined;
  private stopped = false;

  constructor(
    private readonly watch: WatchRequest,
    private readonly path: string,
    private readonly list: () => Promise<KubernetesListObject<KubernetesObject>>,
    private readonly labelSelector?: string,
  ) {}

  /** Number of objects known (by version). */
  get size(): number {
    return this.versions.size;
  }

  on(verb: ObjectVerb, cb: ObjectCallback<KubernetesObject>): void;
  on(verb: StateVerb, cb: ErrorCallback): void;
  on(verb: ObjectVerb | StateVerb, cb: ObjectCallback<KubernetesObject> | ErrorCallback): void {
    for (const list of this.callbacksOf(verb)) list.push(cb as ErrorCallback);
  }

  off(verb: ObjectVerb, cb: ObjectCallback<KubernetesObject>): void;
  off(verb: StateVerb, cb: ErrorCallback): void;
  off(verb: ObjectVerb | StateVerb, cb: ObjectCallback<KubernetesObject> | ErrorCallback): void {
    for (const list of this.callbacksOf(verb)) {
      const at = list.indexOf(cb as ErrorCallback);
      if (at >= 0) list.splice(at, 1);
    }
  }

  /** LISTs (unless a WATCH can resume), then WATCHes; resolves once the WATCH is requested. */
  async start(): Promise<void> {
    this.stopped = false;
    await this.run(null);
  }

  /** Ends the WATCH; nothing restarts it. */
  stop(): Promise<void> {
    this.stopped = true;
    this.abort();
    return Promise.resolve();
  }

  private callbacksOf(verb: ObjectVerb | StateVerb): ((obj: never) => void)[][] {
    const { add, update, delete: deleted } = this.objectCallbacks;
    switch (verb) {
      case 'change':
        return [add, update, deleted];
      case 'error':
      case 'connect':
        return [this.stateCallbacks[verb]];
      default:
        return [this.objectCallbacks[verb]];
    }
  }

  private abort(): void {
    this.request?.abort();
    this.request = undefined;
  }

  /** What client-node's ListWatch does when a WATCH ends (`err` null) or at start. */
  private async run(err: unknown): Promise<void> {
    this.abort();
    if (isGone(err)) this.resourceVersion = '';
    else if (err !== null && err !== undefined) {
      this.tellState('error', err);
      return;
    }
    if (this.stopped) return;
    this.tellState('connect', undefined);
    if (this.resourceVersion === '') {
      let listed: KubernetesListObject<KubernetesObject>;
      try {
        listed = await this.list();
      } catch (listErr) {
        this.tellState('error', listErr);
        return;
      }
      this.replaceAll(listed.items);
      this.resourceVersion = listed.metadata?.resourceVersion ?? '';
    }
    const query: Record<string, string> = { resourceVersion: this.resourceVersion };
    if (this.labelSelector !== undefined) query.labelSelector = this.labelSelector;
    this.request = await this.watch.watch(
      this.path,
      query,
      (phase: string, obj: KubernetesObject) => {
        this.event(phase, obj);
      },
      (doneErr: unknown) => void this.run(doneErr),
    );
  }

  /** A LIST's items: each added or updated, and every object known but not listed deleted. */
  private replaceAll(items: readonly KubernetesObject[]): void {
    const listed = new Set(items.map(keyOf));
    for (const key of [...this.versions.keys()]) {
      if (listed.has(key)) continue;
      this.versions.delete(key);
      this.tellObject('delete', objectOfKey(key));
    }
    for (const item of items) this.upsert(item);
  }

  private event(phase: string, obj: KubernetesObject): void {
    switch (phase) {
      case 'ERROR':
        // The WATCH ends after it; a Gone one makes the next start LIST first.
        if ((obj as { code?: unknown }).code === 410) this.resourceVersion = '';
        return;
      case 'ADDED':
      case 'MODIFIED':
        this.upsert(obj);
        break;
      case 'DELETED':
        if (this.versions.delete(keyOf(obj))) this.tellObject('delete', obj);
        break;
      default:
        break;
    }
    this.resourceVersion = obj.metadata?.resourceVersion ?? '';
  }

  private upsert(obj: KubernetesObject): void {
    const key = keyOf(obj);
    const version = obj.metadata?.resourceVersion ?? '';
    const known = this.versions.get(key);
    if (known !== undefined && known !== '' && known === version) return;
    this.versions.set(key, version);
    this.tellObject(known === undefined ? 'add' : 'update', obj);
  }

  private tellObject(verb: 'add' | 'update' | 'delete', obj: KubernetesObject): void {
    for (const cb of this.objectCallbacks[verb].slice()) cb(obj);
  }

  private tellState(verb: StateVerb, err: unknown): void {
    for (const cb of this.stateCallbacks[verb].slice()) cb(err);
  }
}

/** VersionListWatches on `kubeConfig`'s cluster: the PipelineWatcher's informers. */
export function versionListWatches(
  kubeConfig: KubeConfig,
): (
  path: string,
  list: () => Promise<KubernetesListObject<KubernetesObject>>,
  labelSelector?: string,
) => VersionListWatch {
  const watch = new Watch(kubeConfig);
  return (path, list, labelSelector) => new VersionListWatch(watch, path, list, labelSelector);
}
