/**
 * Ties the periodic resync to leader election: every replica makes the start-up pass (it
 * fills the verified view and readiness waits for it), and after that only the replica
 * holding the Lease makes periodic passes, so N replicas cost one set of LISTs, not N.
 */
import type { GatewayConfig } from '../config/gateway-config.js';
import type { Scheduler } from '../clock.js';
import type { LeaseStore } from '../kube/ports.js';
import type { GatewayLogger } from '../log.js';
import { LeaderElector } from './leader.js';
import type { Resync } from '../resync/resync.js';

/** What resyncLeadership needs. */
export interface ResyncLeadershipDeps {
  settings: GatewayConfig['leaderElection'];
  /** The management cluster's Leases. */
  store: LeaseStore;
  resync: Resync;
  scheduler: Scheduler;
  random: () => number;
  logger: GatewayLogger;
  /** Set to 1 while this replica runs the periodic passes, else 0. */
  gauge: { set(value: number): void };
  /**
   * Told when this replica takes the Lease, and when a Lease call answers after failed ones:
   * either way the management API answers, so what waited on it may go on now.
   */
  onRecovery?: (cause: LeaseRecovery) => void;
}

/** What told leader election that the management API answers: see onRecovery. */
export type LeaseRecovery = 'lease-acquired' | 'lease-answered';

/** The resync's schedule under leader election (or without it, when disabled). */
export interface ResyncLeadership {
  /** This replica's holderIdentity; undefined when leader election is off. */
  readonly identity: string | undefined;
  /** Whether this replica runs the periodic passes now (always, when election is off). */
  isLeader(): boolean;
  /** Makes the start-up pass at once and starts campaigning for the periodic ones. */
  start(): void;
  /** Stops the passes and campaigning; a leader releases the Lease for a quick takeover. */
  stop(): Promise<void>;
}

/** Builds the schedule; nothing runs until start(). */
export function resyncLeadership(deps: ResyncLeadershipDeps): ResyncLeadership {
  const { settings, resync, gauge } = deps;
  if (!settings.enabled) {
    return {
      identity: undefined,
      isLeader: () => true,
      start: () => {
        gauge.set(1);
        resync.start();
      },
      stop: () => resync.stop(),
    };
  }
  const { onRecovery } = deps;
  const elector = new LeaderElector({
    store:
      onRecovery === undefined
        ? deps.store
        : answersAgain(deps.store, () => {
            onRecovery('lease-answered');
          }),
    namespace: settings.namespace,
    name: settings.name,
    identity: settings.identity,
    leaseDurationMs: settings.leaseDurationMs,
    renewDeadlineMs: settings.renewDeadlineMs,
    retryPeriodMs: settings.retryPeriodMs,
    scheduler: deps.scheduler,
    random: deps.random,
    logger: deps.logger,
  });
  elector.onChange((leader) => {
    gauge.set(leader ? 1 : 0);
    resync.setPeriodic(leader);
    if (leader) onRecovery?.('lease-acquired');
  });
  return {
    identity: elector.identity,
    isLeader: () => elector.isLeader(),
    start: () => {
      gauge.set(0);
      resync.start(false);
      elector.start();
    },
    // The Lease goes first, so that the next leader's passes start while this one winds down.
    stop: async () => {
      await elector.stop();
      await resync.stop();
    },
  };
}

/** What a Lease call resolves to: a failure unless ok, or a 409 (which is an answer too). */
type LeaseAnswer = { ok: true } | { ok: false; conflict?: boolean };

/**
 * `store`, calling `answered` on the first answer after calls that failed (unreachable, 5xx,
 * denied, or thrown): the elector keeps calling every retry period whatever happens, so this is
 * the earliest sign that the management API is back.
 */
export function answersAgain(store: LeaseStore, answered: () => void): LeaseStore {
  let failing = false;
  const observe = async <T extends LeaseAnswer>(call: () => Promise<T>): Promise<T> => {
    let result: T;
    try {
      result = await call();
    } catch (err) {
      failing = true;
      throw err;
    }
    const failed = !result.ok && result.conflict !== true;
    if (failing && !failed) answered();
    failing = failed;
    return result;
  };
  return {
    get: (namespace, name) => observe(() => store.get(namespace, name)),
    create: (lease) => observe(() => store.create(lease)),
    replace: (lease) => observe(() => store.replace(lease)),
  };
}
