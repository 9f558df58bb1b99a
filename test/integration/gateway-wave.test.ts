/**
 * Through the real client and kube-sim: a promotion wave found by a pass (every event
 * lost) is confirmed with one read per scope before any promotion, however slow the machine:
 * here the gateway's clock runs 100 times faster than real time through the wave and every API
 * server answers 20 ms late, so each check starts long after the pass's reads. Each promotion
 * still runs once, with one replica and with two.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createApp,
  ENVIRONMENTS,
  HR_RESOURCE,
  launchGateway,
  promoteEvents,
  recordOf,
  rollOut,
  startTestFleet,
  waitSteady,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';

/** Three times more applications than checks run at once (32): the checks spread over the wave. */
const APPS = Array.from({ length: 100 }, (_, i) => `wave-${String(i)}`);

let fleet: TestFleet;

beforeEach(async () => {
  fleet = await startTestFleet();
  for (const ns of APPS) createApp(fleet, ns);
  for (const cluster of [fleet.management, ...ENVIRONMENTS.map((env) => fleet[env])])
    await cluster.faults.set({ latency: { fixedMs: 20 } });
});
afterEach(async () => {
  await fleet.close();
});

function appReads(): { gets: number; lists: number } {
  let gets = 0;
  let lists = 0;
  for (const env of ENVIRONMENTS) {
    gets += fleet[env].requests.count({ verb: 'get', resource: HR_RESOURCE });
    lists += fleet[env].requests.count({ verb: 'list', resource: HR_RESOURCE });
  }
  return { gets, lists };
}

/** Rolls dev of every application out through kube-sim's code API: no event is sent. */
function rollDev(version: string): void {
  for (const ns of APPS) rollOut(fleet.dev, ns, version);
}

/**
 * Runs one pass on each replica while their clocks run 10 times faster than real time: reads go
 * stale within the wave (the freshness window is 200 ms of real time), while a claim's deadline
 * (the strategy's 5 s bound and its margin) still outlasts its attempt, as it does when the
 * replicas' clocks agree.
 */
async function waveOn(replicas: readonly RunningGateway[]): Promise<void> {
  // Everything read so far is older than the freshness window, as after a long pass.
  for (const r of replicas) r.advanceClock(5_000);
  const ticker = setInterval(() => {
    for (const r of replicas) r.advanceClock(100);
  }, 10);
  try {
    await Promise.all(replicas.map((r) => r.gateway.resync()));
    for (const r of replicas) await r.gateway.idle();
  } finally {
    clearInterval(ticker);
  }
}

function expectPromotedOnce(version: string): void {
  for (const ns of APPS) {
    expect(recordOf(fleet, ns, 'staging')).toMatchObject({ revision: version, attempt: 1 });
    expect(promoteEvents(fleet, ns).map((e) => e.metadata.annotations)).toEqual([
      { environment: 'staging', version },
    ]);
  }
}

describe('a promotion wave after a pass, on a slow machine and slow API servers', () => {
  it('costs one read per scope beyond the pass, and promotes each application once', async () => {
    const gateway = await launchGateway(fleet);
    try {
      for (const ns of APPS) await waitSteady(fleet, [gateway], ns);
      rollDev('6.6.0');
      const before = appReads();
      await waveOn([gateway]);
      const reads = appReads();
      // The pass: one cluster-wide LIST per cluster (100 namespaces each); the round: one of
      // dev and one of staging, which the promotions to staging depend on. No GET, and no
      // LIST per check however late it starts.
      expect(reads.gets - before.gets).toBe(0);
      expect(reads.lists - before.lists).toBeLessThanOrEqual(ENVIRONMENTS.length + 2);
      expectPromotedOnce('6.6.0');
    } finally {
      await gateway.close();
    }
  });

  it('runs each promotion once when two replicas make the pass at the same time', async () => {
    const replicas = await Promise.all(
      ['replica-a', 'replica-b'].map((instanceId) => launchGateway(fleet, { instanceId })),
    );
    try {
      for (const ns of APPS) await waitSteady(fleet, replicas, ns);
      rollDev('6.6.0');
      await waveOn(replicas);
      expectPromotedOnce('6.6.0');
    } finally {
      await Promise.all(replicas.map((r) => r.close()));
    }
  });
});
