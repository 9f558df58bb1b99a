/**
 * The resync's schedule under leader election, on hand-driven time: every replica makes the
 * start-up pass, only the Lease holder makes the periodic ones, and a takeover resumes them.
 */
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../src/config/load.js';
import { PipelineCatalog } from '../../../src/catalog/catalog.js';
import { createLogger } from '../../../src/log.js';
import { resyncLeadership, type ResyncLeadership } from '../../../src/leadership/leadership.js';
import { Resync } from '../../../src/resync/resync.js';
import { VerifiedTargets } from '../../../src/verify/verified-targets.js';
import { Verifier } from '../../../src/verify/verifier.js';
import { FakeLeases, type FakeLeaseView } from '../../support/fake-lease-store.js';
import { advanceInSteps, FakeScheduler } from '../../support/fake-scheduler.js';

const INTERVAL_MS = 60_000;

interface Replica {
  leadership: ResyncLeadership;
  resync: Resync;
  view: FakeLeaseView;
  gauge: { value: number; set(value: number): void };
}

function setup(enabled = true) {
  const scheduler = new FakeScheduler(Date.parse('2026-11-21T10:00:00Z'));
  const leases = new FakeLeases();
  const replica = (identity: string): Replica => {
    const config = defaultConfig({
      resync: { intervalMs: INTERVAL_MS, jitter: 0 },
      leaderElection: { enabled, identity },
    });
    const logger = createLogger('silent');
    // No pipelines: a pass reads nothing, which is all this schedule needs.
    const verifier = new Verifier({
      reader: () => undefined,
      clusters: () => [],
      problem: () => undefined,
    });
    const resync = new Resync({
      catalog: new PipelineCatalog(config),
      verified: new VerifiedTargets(verifier, () => scheduler.now()),
      logger,
      scheduler,
      random: () => 0.5,
      intervalMs: config.resync.intervalMs,
      jitter: config.resync.jitter,
      refreshCredentials: () => Promise.resolve(),
      pipelines: { requestPipeline: () => 'queued' },
    });
    const view = leases.view();
    const gauge = {
      value: -1,
      set(value: number) {
        this.value = value;
      },
    };
    const leadership = resyncLeadership({
      settings: config.leaderElection,
      store: view,
      resync,
      scheduler,
      random: () => 0,
      logger,
      gauge,
    });
    return { leadership, resync, view, gauge };
  };
  /** Moves time forward in 100 ms steps, letting the store's answers land in between. */
  const run = (ms: number) => advanceInSteps(scheduler, ms);
  const passes = (...replicas: Replica[]) => replicas.map((r) => r.resync.completedPasses);
  return { scheduler, leases, replica, run, passes };
}

describe('resyncLeadership', () => {
  it('makes the start-up pass everywhere and the periodic ones on the leader only', async () => {
    const { leases, replica, run, passes } = setup();
    const a = replica('gw-a');
    const b = replica('gw-b');
    a.leadership.start();
    b.leadership.start();
    await run(100);

    expect(passes(a, b)).toEqual([1, 1]);
    expect([a.leadership.isLeader(), b.leadership.isLeader()]).toEqual([true, false]);
    expect([a.gauge.value, b.gauge.value]).toEqual([1, 0]);
    expect(leases.peek('flux-system', 'promotion-gateway-resync')?.spec.holderIdentity).toBe(
      'gw-a',
    );

    // The first leader's next pass is one interval after its start-up pass, not a repeat of it.
    await run(INTERVAL_MS - 1_000);
    expect(passes(a, b)).toEqual([1, 1]);
    await run(9 * INTERVAL_MS);
    expect(passes(a, b)).toEqual([10, 1]);
  });

  it('moves the periodic passes to the replica that takes over, soon after', async () => {
    const { leases, replica, run, passes } = setup();
    const a = replica('gw-a');
    const b = replica('gw-b');
    a.leadership.start();
    await run(100);
    b.leadership.start();
    await run(5 * INTERVAL_MS);
    expect(passes(a, b)).toEqual([6, 1]);

    await a.leadership.stop();
    expect(a.gauge.value).toBe(0);
    // b's last pass is five intervals old: it makes one within a retry period and a second.
    await run(3_100);
    expect(b.leadership.isLeader()).toBe(true);
    expect(b.gauge.value).toBe(1);
    expect(passes(a, b)).toEqual([6, 2]);
    await run(INTERVAL_MS);
    expect(passes(a, b)).toEqual([6, 3]);
    expect(leases.peek('flux-system', 'promotion-gateway-resync')?.spec).toMatchObject({
      holderIdentity: 'gw-b',
      leaseTransitions: 1,
    });
    await b.leadership.stop();
  });

  it('stops the periodic passes of a leader that cannot renew', async () => {
    const { replica, run, passes } = setup();
    const a = replica('gw-a');
    a.leadership.start();
    await run(2 * INTERVAL_MS + 100);
    expect(passes(a)).toEqual([3]);

    a.view.cutOff = true;
    await run(11_000);
    expect(a.leadership.isLeader()).toBe(false);
    expect(a.gauge.value).toBe(0);
    await run(5 * INTERVAL_MS);
    expect(passes(a)).toEqual([3]);

    // Reachable again, it finds its own Lease unrenewed, takes it back and resumes.
    a.view.cutOff = false;
    await run(20_000);
    expect(a.leadership.isLeader()).toBe(true);
    expect(passes(a)).toEqual([4]);
    await a.leadership.stop();
  });

  it('runs the periodic passes on every replica when leader election is off', async () => {
    const { replica, run, passes } = setup(false);
    const a = replica('gw-a');
    const b = replica('gw-b');
    a.leadership.start();
    b.leadership.start();
    await run(3 * INTERVAL_MS + 100);

    expect(passes(a, b)).toEqual([4, 4]);
    expect([a.gauge.value, b.gauge.value]).toEqual([1, 1]);
    expect([a.leadership.identity, a.view.calls, b.view.calls]).toEqual([undefined, 0, 0]);
  });
});
