/**
 * Leader election on a coordination.k8s.io/v1 Lease, with client-go's semantics, so that one
 * replica runs the periodic resync while every replica serves HTTP. A candidate takes the
 * Lease when it is absent, released (no holder) or not renewed for leaseDurationSeconds; the
 * leader renews every retryPeriod and stops believing it leads once renewDeadline has passed
 * since its last successful renewal, which is before anyone else may take the Lease over.
 */
import type { Scheduler } from '../clock.js';
import type { LeaseObject, LeaseSpec, LeaseStore, LeaseWriteResult } from '../kube/ports.js';
import { failureSummary } from '../kube/errors.js';
import { logFailure, type GatewayLogger } from '../log.js';
import { microTime } from '../time/kube-time.js';

/** What a LeaderElector needs; timings default to client-go's (15 s, 10 s, 2 s). */
export interface LeaderElectorOptions {
  store: LeaseStore;
  namespace: string;
  name: string;
  /** This replica's holderIdentity; must differ between replicas. */
  identity: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  scheduler: Scheduler;
  /** The wall clock (default scheduler.now); only the MicroTimes written to the Lease use it. */
  now?: () => number;
  /** A clock that never jumps (default scheduler.monotonic): every duration is judged on it. */
  elapsed?: () => number;
  random?: () => number;
  logger: GatewayLogger;
}

/** When an attempt started: on the wall clock (for the Lease) and the monotonic one. */
interface Moment {
  wall: number;
  elapsed: number;
}

/** client-go's JitterFactor for acquire attempts: each waits retryPeriod × (1 + 1.2 × rand). */
const ACQUIRE_JITTER = 1.2;

/** Campaigns for one Lease until stopped; isLeader() and onChange() report the outcome. */
export class LeaderElector {
  readonly identity: string;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly now: () => number;
  private readonly elapsed: () => number;
  private readonly random: () => number;
  private readonly listeners = new Set<(leader: boolean) => void>();
  private leader = false;
  private stopped = true;
  /** The Lease as this replica last wrote it while leading: the next renewal's precondition. */
  private held: LeaseObject | undefined;
  /** When this replica first saw the Lease's current version (client-go's observedTime). */
  private observed: { resourceVersion: string; at: number } | undefined;
  private cancelTick: (() => void) | undefined;
  private cancelDeadline: (() => void) | undefined;
  private inFlight: Promise<void> | undefined;
  private lastProblem: string | undefined;

  constructor(private readonly options: LeaderElectorOptions) {
    this.identity = options.identity;
    this.leaseDurationMs = options.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = options.retryPeriodMs ?? 2_000;
    this.now = options.now ?? (() => options.scheduler.now());
    this.elapsed = options.elapsed ?? (() => options.scheduler.monotonic());
    this.random = options.random ?? Math.random;
    if (!(this.retryPeriodMs < this.renewDeadlineMs && this.renewDeadlineMs < this.leaseDurationMs))
      throw new RangeError('leader election needs retryPeriod < renewDeadline < leaseDuration');
  }

  /** Whether this replica currently leads. */
  isLeader(): boolean {
    return this.leader;
  }

  /** Calls `listener` on every change of isLeader(); returns the unsubscribe function. */
  onChange(listener: (leader: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Starts campaigning with an immediate attempt. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /**
   * Stops campaigning; a leader stops believing it leads, then releases the Lease (no holder,
   * leaseDurationSeconds 1, as client-go does) so that another replica takes over at once.
   */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.cancelTick?.();
    await this.inFlight;
    const held = this.leader ? this.held : undefined;
    this.demote('stopped');
    if (held === undefined) return;
    const at = microTime(this.now());
    const released = await this.options.store.replace({
      metadata: held.metadata,
      spec: {
        holderIdentity: '',
        leaseDurationSeconds: 1,
        acquireTime: at,
        renewTime: at,
        leaseTransitions: held.spec.leaseTransitions ?? 0,
      },
    });
    if (!released.ok && !released.conflict) this.problem(released);
  }

  private schedule(delayMs: number): void {
    this.cancelTick?.();
    this.cancelTick = this.options.scheduler.setTimer(delayMs, () => {
      this.cancelTick = undefined;
      this.tick();
    });
  }

  private tick(): void {
    if (this.stopped) return;
    this.inFlight = this.attempt()
      .catch((err: unknown) => {
        logFailure(
          this.options.logger,
          'error',
          'resync leader election failed',
          { identity: this.identity },
          { summary: failureSummary(err), err },
        );
      })
      .finally(() => {
        this.inFlight = undefined;
        if (this.stopped) return;
        const jitter = this.leader ? 0 : ACQUIRE_JITTER * this.random();
        this.schedule(this.retryPeriodMs * (1 + jitter));
      });
  }

  /** One tryAcquireOrRenew: a leader renews blind, anyone else looks at the Lease first. */
  private async attempt(): Promise<void> {
    // Wall time for the Lease's MicroTimes; monotonic time for the renew deadline.
    const at: Moment = { wall: this.now(), elapsed: this.elapsed() };
    if (this.leader && this.held !== undefined) {
      const renewed = await this.options.store.replace(this.claim(this.held, at.wall));
      if (renewed.ok || !renewed.conflict) {
        this.settle(renewed, at.elapsed);
        return;
      }
      // 409: the Lease changed under us (taken over, or edited): decide from what it is now.
    }
    await this.acquire(at);
  }

  private async acquire(at: Moment): Promise<void> {
    const { store, namespace, name } = this.options;
    const current = await store.get(namespace, name);
    if (!current.ok) {
      this.problem(current);
      return;
    }
    const lease = current.value;
    if (lease === undefined) {
      const fresh: LeaseObject = { metadata: { name, namespace }, spec: {} };
      this.settle(await store.create(this.claim(fresh, at.wall, true)), at.elapsed);
      return;
    }
    this.observe(lease);
    const holder = lease.spec.holderIdentity ?? '';
    if (holder !== '' && holder !== this.identity && !this.expired(lease)) {
      this.demote(`the Lease is held by ${holder}`);
      return;
    }
    this.settle(await store.replace(this.claim(lease, at.wall)), at.elapsed);
  }

  /**
   * The Lease with this replica as holder, renewed at `at`. A change of holder counts as a
   * transition; a Lease created now starts at none.
   */
  private claim(lease: LeaseObject, at: number, created = false): LeaseObject {
    const previous = lease.spec;
    const kept = previous.holderIdentity === this.identity;
    const transitions = previous.leaseTransitions ?? 0;
    const spec: LeaseSpec = {
      holderIdentity: this.identity,
      leaseDurationSeconds: Math.ceil(this.leaseDurationMs / 1000),
      acquireTime: kept ? (previous.acquireTime ?? microTime(at)) : microTime(at),
      renewTime: microTime(at),
      leaseTransitions: kept || created ? transitions : transitions + 1,
    };
    return { metadata: lease.metadata, spec };
  }

  /**
   * Expiry is judged on this replica's own clock, from when it first saw the Lease's current
   * version, never from the holder's renewTime: clocks of two nodes may disagree by more than
   * the margin between renewDeadline and leaseDuration.
   */
  private observe(lease: LeaseObject): void {
    const resourceVersion = lease.metadata.resourceVersion ?? '';
    if (this.observed?.resourceVersion !== resourceVersion) {
      this.observed = { resourceVersion, at: this.elapsed() };
    }
  }

  private expired(lease: LeaseObject): boolean {
    const since = this.observed?.at ?? this.elapsed();
    return this.elapsed() >= since + (lease.spec.leaseDurationSeconds ?? 0) * 1000;
  }

  /** Applies a write's outcome; `startedAt` is when the write started, on the monotonic clock. */
  private settle(result: LeaseWriteResult, startedAt: number): void {
    if (!result.ok) {
      // A conflict is another replica winning the race; the next attempt looks again.
      if (!result.conflict) this.problem(result);
      return;
    }
    this.lastProblem = undefined;
    this.observe(result.value);
    const deadline = startedAt + this.renewDeadlineMs;
    // A write that took longer than the deadline proves nothing about the time since.
    if (this.elapsed() >= deadline) return;
    this.held = result.value;
    this.cancelDeadline?.();
    this.cancelDeadline = this.options.scheduler.setTimer(deadline - this.elapsed(), () => {
      this.demote('the Lease could not be renewed within renewDeadline');
    });
    if (this.leader) return;
    this.leader = true;
    this.options.logger.info(
      {
        identity: this.identity,
        lease: this.leaseName(),
        leaseTransitions: result.value.spec.leaseTransitions,
      },
      'became resync leader',
    );
    this.emit();
  }

  private demote(reason: string): void {
    this.cancelDeadline?.();
    this.cancelDeadline = undefined;
    this.held = undefined;
    if (!this.leader) return;
    this.leader = false;
    this.options.logger.info(
      { identity: this.identity, lease: this.leaseName(), reason },
      'lost resync leadership',
    );
    this.emit();
  }

  /**
   * Logs a failed Lease call once per streak of the same failure (it repeats every retry).
   * Missing rights are an error, not a blip: no replica makes periodic passes until fixed.
   */
  private problem(failure: { reason: string; message: string }): void {
    const text = `${failure.reason}: ${failure.message}`;
    const denied = failure.reason === 'Forbidden' || failure.reason === 'Unauthorized';
    const level = text === this.lastProblem ? 'debug' : denied ? 'error' : 'warn';
    this.lastProblem = text;
    this.options.logger[level](
      { identity: this.identity, lease: this.leaseName(), reason: failure.reason },
      `resync lease call failed: ${failure.message}` +
        (denied ? ' (grant get, create and update on leases, or disable leaderElection)' : ''),
    );
  }

  private emit(): void {
    for (const listener of this.listeners) listener(this.leader);
  }

  private leaseName(): string {
    return `${this.options.namespace}/${this.options.name}`;
  }
}
