/**
 * Recovery from a management API outage, on one and on two replicas: a promotion is claimed,
 * then the management cluster fails every request and then refuses connections until every
 * replica has lost the Lease, so the strategy's Event, the outcome and the re-checks all fail
 * and back off, for longer than the test runs. Once the API is back, the claimed promotion is
 * resolved all the same: only the watch connecting again or the Lease answering again can
 * re-check it then, and the claim-timeout policy retries the abandoned attempt, with one
 * Promote Event for the revision. (That they re-check at once is test/unit/wiring/recovery.
 * test.ts's, on a fake clock; real time on a loaded machine would prove nothing here.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigInput } from '../../src/config/load.js';
import {
  APP_NAME,
  createApp,
  eventually,
  launchGateway,
  postSigned,
  promoteEvents,
  recordOf,
  rollOut,
  startTestFleet,
  upgradeBody,
  waitSteady,
} from '../support/gateway-harness.js';
import type { RunningGateway, TestFleet } from '../support/gateway-harness.js';

const NS = 'recovery';
const VERSION = '6.6.0';

/** The shortest claim timeout the configuration allows with the shortest pull-request timeouts. */
const CLAIM_TIMEOUT_MS = 9_500;

/**
 * Re-checks back off for five to ten minutes, so that none comes by backoff while the test
 * runs: after the outage only a prompt re-check can resolve the claim; a retried claim waits
 * 0.5 s; leader election as in gateway-leader.test.ts (4 s to lose the Lease in an outage).
 */
const CONFIG: ConfigInput = {
  hints: { retryBaseMs: 600_000, retryMaxMs: 600_000, maxRetries: 8 },
  leaderElection: { leaseDurationMs: 5_000, renewDeadlineMs: 4_000, retryPeriodMs: 200 },
  promotion: {
    retry: { claimTimeoutMs: CLAIM_TIMEOUT_MS, backoffBaseMs: 500, backoffMaxMs: 1_000 },
    pullRequest: { gitTimeoutMs: 1_000, apiTimeoutMs: 100 },
  },
};

describe.each([1, 2])('the real gateway on kube-sim, %i replica(s)', (count) => {
  let fleet: TestFleet;
  let replicas: RunningGateway[];

  beforeAll(async () => {
    fleet = await startTestFleet();
    createApp(fleet, NS);
    const ids = ['replica-a', 'replica-b'].slice(0, count);
    replicas = await Promise.all(
      ids.map((instanceId) => launchGateway(fleet, { instanceId, config: CONFIG })),
    );
    await waitSteady(fleet, replicas, NS);
  });
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.close()));
    await fleet.close();
  });

  /** Delivers dev's upgrade to every replica; resolves once staging's claim is stored. */
  async function claimWhileEventsHang(): Promise<void> {
    await fleet.management.faults.set({ hang: { verbs: ['create'], resources: ['events'] } });
    const body = upgradeBody(rollOut(fleet.dev, NS, VERSION));
    for (const r of replicas) {
      const res = await postSigned(r.url, '/v1/events/dev', body, fleet.key('dev'));
      expect(res.status).toBe(202);
    }
    await eventually(() => {
      expect(recordOf(fleet, NS, 'staging')).toMatchObject({ revision: VERSION, phase: 'Claimed' });
    });
  }

  /**
   * Fails every management request, then refuses connections until every replica has lost the
   * Lease (its renew deadline is on the monotonic clock: that takes real time), then lifts it.
   * The gateways' wall clocks step past the claim timeout meanwhile: the outage, as the claim
   * sees it, lasts long enough for the claim to expire.
   */
  async function outage(): Promise<void> {
    const faults = fleet.management.faults;
    // Set before the hang is lifted, so the held Event POST meets the 503 and creates nothing.
    await faults.set({ errors: [{ rate: 1, code: 503 }] });
    await faults.clear('hang');
    await faults.set({ down: true });
    for (const r of replicas) r.advanceClock(CLAIM_TIMEOUT_MS);
    await eventually(() => replicas.every((r) => !r.gateway.status().leader), {
      timeoutMs: 20_000,
    });
    await faults.clear();
  }

  it('resolves a promotion claimed before the outage once the API is back', async () => {
    await claimWhileEventsHang();
    const claimed = recordOf(fleet, NS, 'staging');
    await outage();
    // The attempt never finished: its record is still the claim, and no Event was created.
    expect(recordOf(fleet, NS, 'staging')).toEqual(claimed);

    const record = await eventually(
      () => {
        const r = recordOf(fleet, NS, 'staging');
        if (r?.revision !== VERSION || r.phase !== 'Succeeded')
          throw new Error(`staging's record is ${JSON.stringify(r)}`);
        return r;
      },
      { timeoutMs: 20_000 },
    );
    // The claim-timeout policy counted the abandoned claim as attempt 1 and retried it.
    expect(record).toMatchObject({ succeeded: true, attempt: 2 });
    expect(['replica-a', 'replica-b']).toContain(record.claimedBy);

    // Every replica has seen the outcome: none decides to promote this revision again.
    await eventually(() => {
      for (const r of replicas) {
        const staging = r.gateway
          .view({ namespace: NS, name: APP_NAME })
          ?.decisions.find((d) => d.environment === 'staging');
        expect(staging).toMatchObject({ outcome: 'AlreadyPromoted', reason: 'PromotionSucceeded' });
      }
    });
    const events = promoteEvents(fleet, NS).filter(
      (e) => e.metadata.annotations?.version === VERSION,
    );
    expect(events.map((e) => e.metadata.annotations)).toEqual([
      { environment: 'staging', version: VERSION },
    ]);
    expect(events[0]?.involvedObject?.name).toBe(APP_NAME);
  });
});
