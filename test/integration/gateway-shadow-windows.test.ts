/**
 * Shadow windows through the real gateway (one replica, then two) on kube-sim: a deny window in
 * mode Shadow over staging lets its promotion through, exactly once, and records what it would
 * have held (the API's policy view: `wouldHold` naming the window; one increment of
 * promotion_gateway_shadow_holds_total across the replicas); switched to Enforce in the spec,
 * the same window holds the next revision (InDenyWindow), which is not promoted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PromotionWindowSpec } from '../../src/pipeline/pipeline-resource.js';
import {
  APP_NAME,
  createApp,
  eventually,
  launchGateway,
  metricSum,
  pipelineOf,
  recordOf,
  startTestFleet,
  waitSteady,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';
import {
  announceRollout,
  apiViewer,
  pendingWith,
  promotionsTo,
  type ApiViewer,
} from '../support/policy-harness.js';

let fleet: TestFleet;
let viewer: ApiViewer;

beforeAll(async () => {
  viewer = await apiViewer();
  fleet = await startTestFleet();
});
afterAll(async () => {
  await fleet.close();
});

/** Always in force: two days long, every day. */
function freeze(mode: 'Shadow' | 'Enforce'): PromotionWindowSpec {
  return {
    name: 'freeze',
    type: 'Deny',
    cron: '0 0 * * *',
    timeZone: 'UTC',
    duration: 'P2D',
    mode,
  };
}

/** Sets staging's windows in the stored Pipeline's spec (created first when absent). */
function stagingWindows(ns: string, windows: PromotionWindowSpec[]): void {
  const pipeline = pipelineOf(fleet, ns);
  const spec = structuredClone(pipeline.spec);
  const staging = spec.environments.find((e) => e.name === 'staging');
  if (staging === undefined) throw new Error('no staging');
  staging.promotion = { strategy: { notification: {} }, windows };
  fleet.management.apply({ ...pipeline, metadata: { name: APP_NAME, namespace: ns }, spec });
}

interface WouldHold {
  gate: string;
  name: string;
  reason: string;
}

/** Staging's policy view on replica `g`, through the API. */
async function stagingPolicy(g: RunningGateway, ns: string): Promise<{ wouldHold?: WouldHold[] }> {
  const bearer = await viewer.token({ sub: 'viewer', pipelines: [`${ns}/*`] });
  const res = await fetch(`${g.url}/v1/pipelines/${ns}/${APP_NAME}`, {
    headers: { Authorization: `Bearer ${bearer}` },
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { policy?: Record<string, { wouldHold?: WouldHold[] }> };
  return body.policy?.staging ?? {};
}

describe.each([1, 2])('shadow windows with %i gateway replica(s)', (replicas) => {
  let gateways: RunningGateway[] = [];

  beforeAll(async () => {
    gateways = await Promise.all(
      Array.from({ length: replicas }, (_, i) =>
        launchGateway(fleet, {
          instanceId: `shadow-${replicas}-${i}`,
          config: { jwt: viewer.jwt },
        }),
      ),
    );
  });
  afterAll(async () => {
    await Promise.all(gateways.map((g) => g.close()));
  });

  const shadowHolds = async (): Promise<number> => {
    let sum = 0;
    for (const g of gateways)
      sum += await metricSum(g.url, 'promotion_gateway_shadow_holds_total', {
        gate: 'window',
        name: 'freeze',
      });
    return sum;
  };

  it('lets a promotion through a shadow deny window, records it, then holds once enforced', async () => {
    const ns = `shadow-${replicas}`;
    createApp(fleet, ns);
    stagingWindows(ns, [freeze('Shadow')]);
    await waitSteady(fleet, gateways, ns);
    const before = await shadowHolds();

    await announceRollout(fleet, gateways, ns, 'dev', '6.6.0');
    await eventually(() => {
      const r = recordOf(fleet, ns, 'staging');
      if (r?.revision !== '6.6.0' || r.phase !== 'Succeeded')
        throw new Error(`staging's record is ${JSON.stringify(r)}`);
    });
    for (const g of gateways) await g.gateway.idle();
    expect(promotionsTo(fleet, ns, 'staging')).toBe(1);
    for (const g of gateways) {
      expect((await stagingPolicy(g, ns)).wouldHold).toEqual([
        expect.objectContaining({ gate: 'window', name: 'freeze', reason: 'InDenyWindow' }),
      ]);
    }
    // Counted once, by the replica whose claim ran the promotion.
    await eventually(async () => {
      expect((await shadowHolds()) - before).toBe(1);
    });

    // Enforced, the same window holds the next revision.
    await announceRollout(fleet, gateways, ns, 'staging', '6.6.0');
    stagingWindows(ns, [freeze('Enforce')]);
    await eventually(() => {
      const mode = pipelineOf(fleet, ns).spec.environments[1]?.promotion?.windows?.[0]?.mode;
      if (mode !== 'Enforce') throw new Error(`mode is ${String(mode)}`);
    });
    for (const g of gateways) await g.gateway.resync();
    await announceRollout(fleet, gateways, ns, 'dev', '6.7.0');
    const held = await pendingWith(fleet, ns, 'InDenyWindow', 'inside deny window "freeze"');
    expect(held.message).toContain('6.7.0');
    for (const g of gateways) {
      await g.gateway.idle();
      expect(await viewer.decisionOf(g, ns, 'staging')).toMatchObject({
        outcome: 'Waiting',
        reason: 'InDenyWindow',
      });
      expect((await stagingPolicy(g, ns)).wouldHold).toBeUndefined();
    }
    expect(promotionsTo(fleet, ns, 'staging')).toBe(1);
    expect((await shadowHolds()) - before).toBe(1);
  }, 60_000);
});
