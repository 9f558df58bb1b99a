/**
 * Ties the periodic resync to leader election: every replica makes the start-up pass (it
 * fills the verified view and readiness waits for it), and after that only the replica
 * holding the Lease makes periodic passes, so N replicas cost one set of LISTs, not N.
 */
import type { GatewayConfig } from '../config/types.js';
import type { Scheduler } from '../clock.js';
import type { LeaseStore } from '../kube/types.js';
import type { GatewayLogger } from '../log.js';
import { LeaderElector } from './leader.js';
import type { Resync } from './resync.js';

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
}

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
  const elector = new LeaderElector({
    store: deps.store,
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
