/**
 * Two gateway replicas on one fleet, both receiving every event: the status claim (an
 * optimistic-concurrency write) lets exactly one of them run each promotion.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createApp,
  deliverToEveryReplica,
  launchGateway,
  promoteEvents,
  recordOf,
  rollOut,
  startTestFleet,
  upgradeBody,
  waitSteady,
  scrapeMetric,
} from '../support/gateway-harness.js';
import type { RunningGateway, TestFleet } from '../support/gateway-harness.js';

let fleet: TestFleet;
let replicas: RunningGateway[];

beforeAll(async () => {
  fleet = await startTestFleet();
  replicas = await Promise.all(
    ['replica-a', 'replica-b'].map((instanceId) => launchGateway(fleet, { instanceId })),
  );
});
afterAll(async () => {
  await Promise.all(replicas.map((r) => r.close()));
  await fleet.close();
});

/** Promotion outcomes counted by one replica's metrics, by outcome. */
async function outcomes(replica: RunningGateway): Promise<Record<string, number>> {
  const series = await scrapeMetric(replica.url, 'promotion_gateway_promotions_total');
  const out: Record<string, number> = {};
  for (const s of series) {
    const outcome = s.labels.outcome ?? '';
    out[outcome] = (out[outcome] ?? 0) + s.value;
  }
  return out;
}

describe('the real gateway on kube-sim: two replicas', () => {
  it('runs each promotion exactly once when both replicas get the same event', async () => {
    const ns = 'replicas';
    createApp(fleet, ns);
    await waitSteady(fleet, replicas, ns);
    const versions = ['6.6.0', '6.7.0', '6.8.0'];

    for (const [round, version] of versions.entries()) {
      const body = upgradeBody(rollOut(fleet.dev, ns, version));
      // Both replicas read state older than their freshness window, as after a quiet spell.
      for (const r of replicas) r.advanceClock(5_000);
      const { statuses, record } = await deliverToEveryReplica(fleet, replicas, ns, body, version);
      expect(statuses).toEqual([202, 202]);

      // One claim: the first attempt, by one of the two replicas; one Promote Event per round.
      expect(record.attempt).toBe(1);
      expect(['replica-a', 'replica-b']).toContain(record.claimedBy);
      expect(recordOf(fleet, ns, 'staging')).toEqual(record);
      const events = promoteEvents(fleet, ns);
      expect(events).toHaveLength(round + 1);
      expect(
        events
          .filter((e) => e.metadata.annotations?.version === version)
          .map((e) => e.metadata.annotations),
      ).toEqual([{ environment: 'staging', version }]);
    }

    // Across both replicas the strategy ran once per revision, never twice.
    const counted = await Promise.all(replicas.map(outcomes));
    const promoted = counted.reduce((sum, c) => sum + (c.Promoted ?? 0), 0);
    expect(promoted).toBe(versions.length);
    // Outcomes the gateway exports from the start (at 0) count only once they happened.
    for (const c of counted) {
      const happened = Object.keys(c).filter((k) => (c[k] ?? 0) > 0);
      expect(happened.filter((k) => k !== 'Promoted' && k !== 'Conflict')).toEqual([]);
    }
  });
});
