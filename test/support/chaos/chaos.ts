/**
 * The chaos of the run, on its timeline (knobs.ts): the clusters answer with cross-region
 * latency throughout; the replica holding the resync Lease is SIGKILLed and started again 5 s
 * later under a new identity; the management API server goes down for 10 s; the receiver
 * answers 500 to a share of the deliveries and is down for 15 s. Every step is written to the
 * journal as it happens.
 */
import { ENVIRONMENTS, FLUX_NAMESPACE, type TestFleet } from '../fleet.js';
import type { Journal } from './journal.js';
import type { Timeline } from './knobs.js';
import type { Receiver } from './receiver.js';
import type { Replicas } from './replicas.js';

/** What the chaos acts on. */
export interface ChaosOptions {
  fleet: TestFleet;
  journal: Journal;
  replicas: Replicas;
  receiver: Receiver;
  timeline: Timeline;
  random: () => number;
}

const LEASE = ['coordination.k8s.io/v1', 'Lease', FLUX_NAMESPACE, 'promotion-gateway-resync'];

/** The timeline, running; `kills` counts the replicas killed so far. */
export class Chaos {
  kills = 0;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly steps: Promise<void>[] = [];

  constructor(private readonly options: ChaosOptions) {}

  /** Sets the network's latency, then schedules every step of the timeline from now. */
  async start(): Promise<void> {
    const { timeline, receiver, fleet, journal } = this.options;
    // Clusters are far away, as across regions: the time between a replica's read and its
    // decision, in which another replica acts, is that of a real fleet, not of loopback.
    const { targetMs, managementMs } = timeline.latency;
    if (targetMs > 0) {
      const latency = { fixedMs: targetMs / 4, jitterMs: targetMs };
      await Promise.all(ENVIRONMENTS.map((env) => fleet.env(env).faults.set({ latency })));
      await fleet.management.faults.set({
        latency: { fixedMs: managementMs / 4, jitterMs: managementMs },
      });
      journal.step(`latency: clusters ${String(targetMs / 4)}-${String(targetMs * 1.25)} ms`);
    }
    for (const at of timeline.kills) this.at(at, () => this.killLeader());
    const errors = timeline.receiverErrors;
    this.at(errors.from, () => this.receiverErrors(errors.rate));
    this.at(errors.to, () => this.receiverErrors(0));
    this.at(timeline.receiverDown.from, () => this.step('receiver down', () => receiver.down()));
    this.at(timeline.receiverDown.to, () => this.step('receiver up', () => receiver.up()));
    const management = fleet.management.faults;
    this.at(timeline.managementDown.from, () =>
      this.step('management API down', () => management.set({ down: true })),
    );
    this.at(timeline.managementDown.to, () =>
      this.step('management API up', () => management.clear('down')),
    );
  }

  /** Resolves once every scheduled step (restarts included) has run. */
  async finished(): Promise<void> {
    let count = 0;
    // A kill schedules its restart as a further step: wait until no step is added.
    while (count !== this.steps.length) {
      count = this.steps.length;
      await Promise.all(this.steps);
    }
  }

  /** Cancels what has not run yet and undoes every fault still in force (latency included). */
  async stop(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.options.receiver.errorRate = 0;
    const { fleet } = this.options;
    await Promise.all(
      ['management', ...ENVIRONMENTS].map((name) => fleet.env(name).faults.clear()),
    );
  }

  private at(ms: number, action: () => Promise<void>): void {
    this.steps.push(
      new Promise((resolve) => {
        this.timers.push(
          setTimeout(() => {
            action().then(resolve, (err: unknown) => {
              this.options.journal.step(`chaos step failed: ${String(err)}`);
              resolve();
            });
          }, ms),
        );
      }),
    );
  }

  private async step(what: string, action: () => Promise<void>): Promise<void> {
    await action();
    this.options.journal.step(what);
  }

  private receiverErrors(rate: number): Promise<void> {
    this.options.receiver.errorRate = rate;
    this.options.journal.step(`receiver answers 500 to ${String(rate * 100)}% of deliveries`);
    return Promise.resolve();
  }

  /** SIGKILLs the Lease holder (a random live replica if none holds it) and restarts its slot. */
  private killLeader(): Promise<void> {
    const { fleet, replicas, journal, random, timeline } = this.options;
    const [apiVersion = '', kind = '', ns = '', name = ''] = LEASE;
    const lease = fleet.management.get(apiVersion, kind, ns, name) as
      { spec?: { holderIdentity?: string } } | undefined;
    const holder = lease?.spec?.holderIdentity;
    const live = replicas.running();
    const leader = live.find((r) => r.identity === holder);
    const victim = leader ?? live[Math.floor(random() * live.length)];
    if (victim === undefined) {
      journal.step(`no live replica to kill (Lease holder ${String(holder)})`);
      return Promise.resolve();
    }
    replicas.kill(victim);
    this.kills++;
    journal.step(
      `SIGKILL ${victim.identity} (${leader === undefined ? `not the Lease holder: ${String(holder)}` : 'the Lease holder'})`,
    );
    this.at(timeline.restartAfterMs, async () => {
      const started = replicas.start(victim.slot);
      journal.step(`starting the next replica of slot ${victim.slot}`);
      const replica = await started;
      journal.step(`${replica.identity} ${replica.url === undefined ? 'exited' : 'listens'}`);
    });
    return Promise.resolve();
  }
}
