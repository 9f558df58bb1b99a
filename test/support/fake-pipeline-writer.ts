/**
 * An in-memory PipelineWriter that behaves like the API server's status subresource where it
 * matters: resourceVersion preconditions (409 -> conflict), a new resourceVersion on every
 * write, status-only replacement, 404 for deleted objects. It counts calls for assertions.
 */
import {
  StatusWriter,
  type ConflictPolicy,
  type WriteAttempt,
} from '../../src/kube/status-writer.js';
import type { EventRecord, KubeObject, PipelineWriter } from '../../src/kube/ports.js';
import type { Pipeline } from '../../src/pipeline/pipeline-resource.js';

/** Thrown like a 404 from the API server. */
export class FakeNotFoundError extends Error {
  readonly code = 404;
  constructor(key: string) {
    super(`pipelines.pipelines.weave.works "${key}" not found`);
    this.name = 'FakeNotFoundError';
  }
}

/** The in-memory writer; seed it with put(), inspect with peek(), counters and events. */
export class FakePipelineWriter implements PipelineWriter {
  /** Successful status writes. */
  writes = 0;
  /** Writes rejected with a conflict. */
  conflicts = 0;
  gets = 0;
  readonly events: EventRecord[] = [];
  /** When set, emitEvent rejects with this error. */
  eventError: Error | undefined;
  /** When set, what the stored status keeps of a write (a CRD that prunes fields). */
  prune: ((status: Pipeline['status']) => Pipeline['status']) | undefined;
  private readonly objects = new Map<string, KubeObject>();
  private nextVersion = 1;
  private readonly beforeWriteHooks: (() => void | Promise<void>)[] = [];

  /** Store (or overwrite) an object as-is, giving it a fresh resourceVersion; returns a copy. */
  put<T extends KubeObject | Pipeline>(object: T): T {
    const copy = clone(object) as KubeObject;
    copy.metadata.resourceVersion = String(this.nextVersion++);
    this.objects.set(keyOf(copy.metadata.namespace ?? '', copy.metadata.name), copy);
    return clone(copy) as T;
  }

  /** The stored object without counting a GET. */
  peek(namespace: string, name: string): Pipeline | undefined {
    const stored = this.objects.get(keyOf(namespace, name));
    return stored === undefined ? undefined : (clone(stored) as unknown as Pipeline);
  }

  delete(namespace: string, name: string): void {
    this.objects.delete(keyOf(namespace, name));
  }

  /** Run `hook` just before the next replaceStatus is applied (to simulate another replica). */
  beforeNextWrite(hook: () => void | Promise<void>): void {
    this.beforeWriteHooks.push(hook);
  }

  async replaceStatus(
    object: KubeObject,
  ): Promise<{ conflict: false; value: KubeObject } | { conflict: true }> {
    const hook = this.beforeWriteHooks.shift();
    if (hook !== undefined) await hook();
    // Let concurrent callers interleave, as they would over the network.
    await Promise.resolve();
    const key = keyOf(object.metadata.namespace ?? '', object.metadata.name);
    const stored = this.objects.get(key);
    if (stored === undefined) throw new FakeNotFoundError(key);
    const rv = object.metadata.resourceVersion;
    // Kubernetes would accept a write without a resourceVersion unconditionally; for our code
    // that is always a bug, so the fake refuses it loudly.
    if (rv === undefined) throw new Error('replaceStatus without resourceVersion precondition');
    if (rv !== stored.metadata.resourceVersion) {
      this.conflicts++;
      return { conflict: true };
    }
    const status =
      this.prune === undefined
        ? object.status
        : this.prune(clone(object.status) as Pipeline['status']);
    const next: KubeObject = clone({ ...stored, status });
    if (object.status === undefined) delete next.status;
    next.metadata.resourceVersion = String(this.nextVersion++);
    this.objects.set(key, next);
    this.writes++;
    return { conflict: false, value: clone(next) };
  }

  get(namespace: string, name: string): Promise<KubeObject | undefined> {
    this.gets++;
    const stored = this.objects.get(keyOf(namespace, name));
    return Promise.resolve(stored === undefined ? undefined : clone(stored));
  }

  emitEvent(event: EventRecord): Promise<void> {
    if (this.eventError !== undefined) return Promise.reject(this.eventError);
    this.events.push(clone(event));
    return Promise.resolve();
  }
}

function keyOf(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

function clone<T>(value: T): T {
  return structuredClone(value);
}

/**
 * The one status writer over `port`, with timers that fire at once (its conflict pauses take no
 * time in unit tests) and no jitter; `attempts` collects every attempt's result.
 */
export function statusWriterOver(
  port: PipelineWriter,
  attempts: WriteAttempt[] = [],
  policy?: ConflictPolicy,
): StatusWriter {
  return new StatusWriter(port, {
    scheduler: {
      setTimer: (_ms, fn) => {
        queueMicrotask(fn);
        return () => undefined;
      },
    },
    random: () => 1,
    onAttempt: (result) => attempts.push(result),
    ...(policy === undefined ? {} : { policy }),
  });
}
