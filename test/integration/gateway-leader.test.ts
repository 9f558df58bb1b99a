/**
 * Two gateway replicas on one fleet with a short resync interval: both serve events and
 * make the start-up pass, but only the holder of the coordination.k8s.io/v1 Lease makes the
 * periodic passes; when it stops, the other takes the Lease over and the passes with it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LeaseSpec } from '../../src/kube/ports.js';
import {
  HR_RESOURCE,
  createApp,
  deliverToEveryReplica,
  eventually,
  launchGateway,
  promoteEvents,
  rollOut,
  startTestFleet,
  upgradeBody,
  waitSteady,
  scrapeMetric,
} from '../support/gateway-harness.js';
import type { RunningGateway, TestFleet } from '../support/gateway-harness.js';

const NS = 'leader';
const LEASE = ['coordination.k8s.io/v1', 'Lease', 'flux-system', 'promotion-gateway-resync'];
/** Generous against a busy machine (a leader must miss 4 s of renewals to lose), yet quick. */
const TIMINGS = { leaseDurationMs: 5_000, renewDeadlineMs: 4_000, retryPeriodMs: 200 };

let fleet: TestFleet;
let replicas: RunningGateway[];
const closed = new Set<RunningGateway>();

beforeAll(async () => {
  fleet = await startTestFleet();
  createApp(fleet, NS);
  replicas = await Promise.all(
    ['replica-a', 'replica-b'].map((instanceId) =>
      launchGateway(fleet, {
        instanceId,
        config: { resync: { intervalMs: 1_000 }, leaderElection: TIMINGS },
      }),
    ),
  );
  await waitSteady(fleet, replicas, NS);
});
afterAll(async () => {
  await Promise.all(replicas.filter((r) => !closed.has(r)).map((r) => r.close()));
  await fleet.close();
});

function leaseSpec(): LeaseSpec {
  const [apiVersion = '', kind = '', namespace = '', name = ''] = LEASE;
  const lease = fleet.management.get(apiVersion, kind, namespace, name) as
    { spec?: LeaseSpec } | undefined;
  return lease?.spec ?? {};
}

/** The one replica that leads, once exactly one does. */
function theLeader(): Promise<{ leader: RunningGateway; follower: RunningGateway }> {
  return eventually(() => {
    const leading = replicas.filter((r) => !closed.has(r) && r.gateway.status().leader);
    expect(leading).toHaveLength(1);
    const [leader] = leading as [RunningGateway];
    const follower = replicas.find((r) => r !== leader && !closed.has(r));
    if (follower === undefined) throw new Error('no follower');
    return { leader, follower };
  });
}

async function gauge(replica: RunningGateway): Promise<number | undefined> {
  return (await scrapeMetric(replica.url, 'promotion_gateway_resync_leader'))[0]?.value;
}

describe('the real gateway on kube-sim: resync leader election', () => {
  it('has exactly one leader, and only it makes periodic passes', async () => {
    const { leader, follower } = await theLeader();
    expect(leaseSpec()).toMatchObject({
      holderIdentity: leader.gateway.status().identity,
      leaseDurationSeconds: 5,
    });
    expect(leaseSpec().renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect([await gauge(leader), await gauge(follower)]).toEqual([1, 0]);

    // Every replica made the start-up pass; after it, the follower makes none.
    const followerPasses = follower.gateway.status().resyncPasses;
    expect(followerPasses).toBe(1);
    fleet.dev.requests.reset();
    const from = leader.gateway.status().resyncPasses;
    await eventually(() => leader.gateway.status().resyncPasses >= from + 3, {
      timeoutMs: 20_000,
    });
    const passes = leader.gateway.status().resyncPasses - from;
    const lists = fleet.dev.requests.count({ verb: 'list', resource: HR_RESOURCE, namespace: NS });

    expect(follower.gateway.status().resyncPasses).toBe(followerPasses);
    expect(follower.gateway.status().leader).toBe(false);
    // One LIST per pass of the leader's (a pass may straddle either end of the window).
    expect(lists).toBeGreaterThanOrEqual(passes - 1);
    expect(lists).toBeLessThanOrEqual(passes + 1);
  });

  it('still runs each promotion exactly once, whichever replica gets the event', async () => {
    const version = '6.6.0';
    // No advanceClock here: a clock step would shorten a follower's view of the Lease's age.
    const body = upgradeBody(rollOut(fleet.dev, NS, version));
    const { statuses, record } = await deliverToEveryReplica(fleet, replicas, NS, body, version);
    expect(statuses).toEqual([202, 202]);
    expect(record.attempt).toBe(1);
    expect(promoteEvents(fleet, NS).map((e) => e.metadata.annotations?.version ?? 'none')).toEqual([
      version,
    ]);
  });

  it('hands the Lease and the periodic passes over when the leader stops', async () => {
    const { leader, follower } = await theLeader();
    const transitions = leaseSpec().leaseTransitions ?? 0;
    const followerPasses = follower.gateway.status().resyncPasses;

    closed.add(leader);
    await leader.close();

    await eventually(() => follower.gateway.status().leader);
    expect(leaseSpec()).toMatchObject({
      holderIdentity: follower.gateway.status().identity,
      leaseTransitions: transitions + 1,
    });
    expect(await gauge(follower)).toBe(1);
    await eventually(() => follower.gateway.status().resyncPasses >= followerPasses + 2, {
      timeoutMs: 20_000,
    });
  });
});
