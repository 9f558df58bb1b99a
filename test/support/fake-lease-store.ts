/**
 * An in-memory LeaseStore that behaves like the API server where leader election depends on
 * it: a new resourceVersion on every write, 409 on a stale precondition or an existing name.
 * Several electors share one store through views, each of which can be cut off (a replica
 * that cannot reach the API server) or made to hang.
 */
import type {
  LeaseObject,
  LeaseStore,
  LeaseWriteResult,
  ReadResult,
} from '../../src/kube/ports.js';

/** The shared state: at most one Lease per namespace/name. */
export class FakeLeases {
  private readonly leases = new Map<string, LeaseObject>();
  private version = 1;
  /** Successful writes, in order, for assertions. */
  readonly writes: LeaseObject[] = [];

  /** Stores a Lease as-is with a fresh resourceVersion (another writer, or a seed). */
  put(lease: LeaseObject): LeaseObject {
    const stored = clone(lease);
    stored.metadata.resourceVersion = String(this.version++);
    this.leases.set(keyOf(stored), stored);
    this.writes.push(clone(stored));
    return clone(stored);
  }

  /** The stored Lease, if any. */
  peek(namespace: string, name: string): LeaseObject | undefined {
    const lease = this.leases.get(`${namespace}/${name}`);
    return lease === undefined ? undefined : clone(lease);
  }

  /** A LeaseStore onto this state, as one replica sees it. */
  view(): FakeLeaseView {
    return new FakeLeaseView(this);
  }

  /** Creates, or reports a conflict when the name is taken. */
  create(lease: LeaseObject): LeaseWriteResult {
    if (this.leases.has(keyOf(lease))) return { ok: false, conflict: true };
    return { ok: true, value: this.put(lease) };
  }

  /** Replaces when the precondition holds, else reports a conflict. */
  replace(lease: LeaseObject): LeaseWriteResult {
    const current = this.leases.get(keyOf(lease));
    if (current?.metadata.resourceVersion !== lease.metadata.resourceVersion) {
      return { ok: false, conflict: true };
    }
    return { ok: true, value: this.put(lease) };
  }
}

/**
 * One replica's connection: `cutOff` answers Unavailable, `forbidden` answers Forbidden (no
 * RBAC on leases), `hang` never answers.
 */
export class FakeLeaseView implements LeaseStore {
  cutOff = false;
  forbidden = false;
  hang = false;
  /** Runs before each write reaches the store: lets a test slip another writer in first. */
  beforeWrite: (() => void) | undefined;
  calls = 0;

  constructor(private readonly leases: FakeLeases) {}

  get(namespace: string, name: string): Promise<ReadResult<LeaseObject | undefined>> {
    return this.answer(() => ({ ok: true, value: this.leases.peek(namespace, name) }));
  }

  create(lease: LeaseObject): Promise<LeaseWriteResult> {
    return this.answer(() => {
      this.beforeWrite?.();
      return this.leases.create(lease);
    });
  }

  replace(lease: LeaseObject): Promise<LeaseWriteResult> {
    return this.answer(() => {
      this.beforeWrite?.();
      return this.leases.replace(lease);
    });
  }

  private answer<T>(
    call: () => T,
  ): Promise<
    T | { ok: false; conflict: false; reason: 'Unavailable' | 'Forbidden'; message: string }
  > {
    this.calls += 1;
    if (this.hang) return new Promise(() => undefined);
    if (this.forbidden) {
      return Promise.resolve({
        ok: false,
        conflict: false,
        reason: 'Forbidden',
        message: 'leases.coordination.k8s.io is forbidden for the gateway',
      });
    }
    if (this.cutOff) {
      return Promise.resolve({
        ok: false,
        conflict: false,
        reason: 'Unavailable',
        message: 'the cluster is unreachable (ECONNREFUSED)',
      });
    }
    return Promise.resolve(call());
  }
}

function keyOf(lease: LeaseObject): string {
  return `${lease.metadata.namespace ?? ''}/${lease.metadata.name}`;
}

function clone<T>(value: T): T {
  return structuredClone(value);
}
