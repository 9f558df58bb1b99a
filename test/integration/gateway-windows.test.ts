/**
 * Promotion windows through the real gateway (one replica, then two) on kube-sim: a deny
 * window in force holds staging (Waiting InDenyWindow, the next opening in the status and the
 * API) and staging is promoted exactly once when it ends; an allow window a minute ahead holds
 * it (OutsidePromotionWindow) until it opens; a rule nobody can follow decides nothing; the
 * operator's fleet-wide window holds prod. (What kubectl takes: windows-kubectl.test.ts.) Time
 * passes by stepping the gateways' clocks, all together: only the last seconds before an
 * opening run in real time, on the gateways' own timers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PromotionWindowSpec } from '../../src/pipeline/pipeline-resource.js';
import {
  APP_NAME,
  createApp,
  eventually,
  launchGateway,
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
  pendingWith as pendingWithIn,
  promotionsTo as promotionsIn,
  type ApiViewer,
} from '../support/policy-harness.js';

/**
 * How far ahead of the gateways' clocks the windows open: time for them to hold first, which
 * no slow step can outlast (the test steps the clocks through it).
 */
const LEAD_MS = 60_000;
/** What is left before an opening when the gateways are left to reach it by themselves. */
const LAST_MS = 3_000;

let fleet: TestFleet;
let viewer: ApiViewer;

beforeAll(async () => {
  viewer = await apiViewer();
  fleet = await startTestFleet();
});
afterAll(async () => {
  await fleet.close();
});

const rollsOut = (gws: readonly RunningGateway[], ns: string, env: 'dev' | 'staging', v: string) =>
  announceRollout(fleet, gws, ns, env, v);
const pendingWith = (ns: string, reason: string, text: string) =>
  pendingWithIn(fleet, ns, reason, text);
const promotionsTo = (ns: string, env: string) => promotionsIn(fleet, ns, env);
const decisionOf = (g: RunningGateway, ns: string, env: string) => viewer.decisionOf(g, ns, env);

/** `ms` as local fields in `zone`: `20250330T023000`, and the cron fields `s m h`. */
function local(ms: number, zone: string): { stamp: string; cron: string } {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    ...{ year: 'numeric', month: '2-digit', day: '2-digit' },
    ...{ hour: '2-digit', minute: '2-digit', second: '2-digit' },
  }).formatToParts(new Date(ms));
  const p = Object.fromEntries(parts.map((x) => [x.type, x.value]));
  const stamp = `${p.year}${p.month}${p.day}T${p.hour}${p.minute}${p.second}`;
  return { stamp, cron: `${Number(p.second)} ${Number(p.minute)} ${Number(p.hour)} * * *` };
}

/** ns/podinfo whose staging environment has `windows`. */
function appWithWindows(ns: string, windows: PromotionWindowSpec[]): void {
  createApp(fleet, ns);
  const pipeline = pipelineOf(fleet, ns);
  const spec = structuredClone(pipeline.spec);
  const staging = spec.environments.find((e) => e.name === 'staging');
  if (staging === undefined) throw new Error('no staging');
  staging.promotion = { strategy: { notification: {} }, windows };
  fleet.management.apply({ ...pipeline, metadata: { name: APP_NAME, namespace: ns }, spec });
}

/** Waits for staging's record of `version` Succeeded; returns when it was attempted (ms). */
async function stagingPromoted(ns: string, version: string): Promise<number> {
  const record = await eventually(
    () => {
      const r = recordOf(fleet, ns, 'staging');
      if (r?.revision !== version || r.phase !== 'Succeeded')
        throw new Error(`staging's record is ${JSON.stringify(r)}`);
      return r;
    },
    { timeoutMs: 20_000 },
  );
  expect(record.attempt).toBe(1);
  return Date.parse(record.lastAttemptedTime);
}

describe.each([1, 2])('promotion windows with %i gateway replica(s)', (replicas) => {
  let gateways: RunningGateway[] = [];
  /** How far every replica's clock is ahead of real time. */
  let offset = 0;
  const clock = (): number => Date.now() + offset;
  /**
   * Steps every replica's clock to `LAST_MS` before `at` and runs a pass on each (as their
   * periodic ones would): from there they reach `at` by themselves, with no event.
   */
  const closeTo = async (at: number): Promise<void> => {
    const ms = Math.max(0, at - LAST_MS - clock());
    offset += ms;
    for (const g of gateways) g.advanceClock(ms);
    for (const g of gateways) await g.gateway.resync();
    for (const g of gateways) await g.gateway.idle();
  };

  beforeAll(async () => {
    gateways = await Promise.all(
      Array.from({ length: replicas }, (_, i) =>
        launchGateway(fleet, {
          instanceId: `windows-${replicas}-${i}`,
          config: {
            jwt: viewer.jwt,
            promotion: {
              // The operator's freeze on prod: two days long every day, so always in force.
              windows: [
                {
                  name: 'prod-freeze',
                  type: 'Deny',
                  cron: '0 0 * * *',
                  timeZone: 'UTC',
                  duration: 'P2D',
                  environments: ['prod'],
                },
              ],
            },
          },
        }),
      ),
    );
  });
  afterAll(async () => {
    await Promise.all(gateways.map((g) => g.close()));
  });

  it('holds staging inside a deny window, names the opening, and promotes it once when it ends', async () => {
    const ns = `deny-${replicas}`;
    const start = Math.floor(clock() / 1000) * 1000 - 60_000;
    const end = start + 60_000 + LEAD_MS;
    appWithWindows(ns, [
      {
        name: 'freeze',
        type: 'Deny',
        rrule: `DTSTART;TZID=Europe/Berlin:${local(start, 'Europe/Berlin').stamp}\nRRULE:FREQ=YEARLY`,
        timeZone: 'Europe/Berlin',
        duration: `${(end - start) / 1000}s`,
      },
    ]);
    await waitSteady(fleet, gateways, ns);
    await rollsOut(gateways, ns, 'dev', '6.6.0');

    const utc = new Date(end).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const held = await pendingWith(ns, 'InDenyWindow', `next opening`);
    expect(held.message).toContain('staging waits: inside deny window "freeze" (environment)');
    expect(held.message).toMatch(
      /next opening \w{3} \d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)? Europe\/Berlin \(\+0[12]:00\)/,
    );
    expect(held.message).toContain(`(${utc})`);
    for (const g of gateways) {
      expect(await decisionOf(g, ns, 'staging')).toMatchObject({
        outcome: 'Waiting',
        revision: '6.6.0',
        reason: 'InDenyWindow',
      });
    }
    expect(promotionsTo(ns, 'staging')).toBe(0);

    // No new event: the gateways look again at the opening (retryAt) by themselves.
    await closeTo(end);
    const attempted = await stagingPromoted(ns, '6.6.0');
    expect(attempted).toBeGreaterThanOrEqual(end - 1_000); // lastAttemptedTime has whole seconds
    for (const g of gateways) await g.gateway.idle();
    expect(promotionsTo(ns, 'staging')).toBe(1);

    // Staging now runs 6.6.0: prod is next, and the operator's window holds it.
    await rollsOut(gateways, ns, 'staging', '6.6.0');
    const prod = await pendingWith(
      ns,
      'InDenyWindow',
      'prod waits: inside deny window "prod-freeze" (fleet)',
    );
    expect(prod.message).toContain('UTC (+00:00)');
    expect(promotionsTo(ns, 'prod')).toBe(0);
  }, 60_000);

  it('holds staging outside its allow window and promotes it once when the window opens', async () => {
    const ns = `allow-${replicas}`;
    const opening = Math.floor(clock() / 1000) * 1000 + LEAD_MS;
    appWithWindows(ns, [
      {
        name: 'soon',
        type: 'Allow',
        cron: local(opening, 'Asia/Kolkata').cron,
        timeZone: 'Asia/Kolkata',
        duration: '1m',
      },
    ]);
    await waitSteady(fleet, gateways, ns);
    await rollsOut(gateways, ns, 'dev', '6.6.0');

    const held = await pendingWith(ns, 'OutsidePromotionWindow', 'next opening');
    expect(held.message).toContain('staging waits: outside allow window "soon" (environment)');
    expect(held.message).toContain('Asia/Kolkata (+05:30)');
    expect(promotionsTo(ns, 'staging')).toBe(0);

    await closeTo(opening);
    const attempted = await stagingPromoted(ns, '6.6.0');
    expect(attempted).toBeGreaterThanOrEqual(opening);
    for (const g of gateways) await g.gateway.idle();
    expect(promotionsTo(ns, 'staging')).toBe(1);
  }, 60_000);

  it('decides nothing on a rule it cannot follow, and keeps serving', async () => {
    const ns = `invalid-${replicas}`;
    appWithWindows(ns, [
      {
        name: 'bad',
        type: 'Deny',
        rrule: 'DTSTART:20250101T090000\nRRULE:FREQ=FORTNIGHTLY',
        timeZone: 'Europe/Berlin',
        duration: '1h',
      },
    ]);
    await waitSteady(fleet, gateways, ns);
    await rollsOut(gateways, ns, 'dev', '6.6.0');
    const held = await pendingWith(ns, 'InvalidPromotionWindow', 'FREQ');
    expect(held.message).toContain(
      'staging decides nothing until its promotion windows are fixed: spec.environments[1].promotion.windows[0] ("bad"): rrule: RRULE FREQ has an invalid value',
    );
    for (const g of gateways) await g.gateway.idle();
    expect(promotionsTo(ns, 'staging')).toBe(0);
    expect(recordOf(fleet, ns, 'staging')).toBeUndefined();
  }, 60_000);
});
