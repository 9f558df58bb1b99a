/**
 * A soak on staging through the real gateway (two replicas, then one) on kube-sim: once dev
 * runs 6.6.0, staging waits (Soaking, the time left in the API, a steady message in the status
 * that repeated events do not rewrite); a failed rollout in dev resets the soak; a restart of
 * every replica keeps its start (stored in the Pipeline status); and staging is promoted exactly
 * once, the soak after dev was last seen healthy, by the gateways looking again by themselves.
 * Time passes by stepping the gateways' clocks (all together, as one time line), not by
 * sleeping: only the last seconds of the soak run in real time, on the gateways' own timers.
 */
import { rollOutRelease } from 'kube-sim/flux';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/kube/ports.js';
import type { HealthySince } from '../../src/pipeline/pipeline-resource.js';
import {
  APP_NAME,
  createApp,
  eventually,
  launchGateway,
  pipelineOf,
  postSigned,
  promoteEvents,
  recordOf,
  rollOut,
  startTestFleet,
  upgradeBody,
  waitSteady,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';
import { apiViewer, type ApiViewer } from '../support/policy-harness.js';

/** staging's soak: the test steps through it, so no slow step can outlast it. */
const SOAK_MS = 30_000;
const SOAK_TEXT = `${String(SOAK_MS / 1000)}s`;
/** What is left of the soak when the gateways are left to end it by themselves. */
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

const decisionOf = (g: RunningGateway, ns: string, env: string) => viewer.decisionOf(g, ns, env);

/** ns/podinfo whose staging soaks SOAK_MS on dev. */
function appWithSoak(ns: string): void {
  createApp(fleet, ns);
  const pipeline = pipelineOf(fleet, ns);
  const spec = structuredClone(pipeline.spec);
  const staging = spec.environments.find((e) => e.name === 'staging');
  if (staging === undefined) throw new Error('no staging');
  staging.promotion = {
    strategy: { notification: {} },
    soak: { duration: SOAK_TEXT },
  };
  fleet.management.apply({ ...pipeline, metadata: { name: APP_NAME, namespace: ns }, spec });
}

/** Replicas on one time line: each one's clock is `offset` ms ahead of real time. */
interface Replicas {
  gateways: RunningGateway[];
  offset: number;
}

/** Launches `count` replicas whose clocks start `offset` ms ahead, each past its first pass. */
async function launch(ns: string, count: number, offset = 0): Promise<Replicas> {
  const gateways = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      launchGateway(fleet, {
        instanceId: `${ns}-${String(i)}`,
        config: {
          jwt: viewer.jwt,
          leaderElection: { name: `${ns}-resync` },
        },
        start: false,
      }),
    ),
  );
  for (const g of gateways) {
    g.advanceClock(offset);
    await g.gateway.start();
  }
  for (const g of gateways) await eventually(() => g.gateway.status().resyncPasses > 0);
  return { gateways, offset };
}

/** Moves every replica's clock forward by `ms`. */
function step(replicas: Replicas, ms: number): void {
  replicas.offset += ms;
  for (const g of replicas.gateways) g.advanceClock(ms);
}

/** The time now on the replicas' clocks. */
const timeOf = (replicas: Replicas): number => Date.now() + replicas.offset;

/** A pass on every replica (as their periodic ones would make), then every replica idle. */
async function passEverywhere(replicas: Replicas): Promise<void> {
  for (const g of replicas.gateways) await g.gateway.resync();
  for (const g of replicas.gateways) await g.gateway.idle();
}

/** dev's stored healthy-since once it shows `revision` (and, if given, is not `other`). */
function devSince(ns: string, revision: string, other?: HealthySince): Promise<HealthySince> {
  return eventually(
    () => {
      const since = pipelineOf(fleet, ns).status?.environments?.dev?.healthySince;
      if (since?.revision !== revision || since.time === other?.time)
        throw new Error(`dev's healthySince is ${JSON.stringify(since)}`);
      return since;
    },
    { timeoutMs: 15_000 },
  );
}

/** Every replica's GET says staging soaks and will look again at `since` + the soak. */
async function everyReplicaSoaks(gateways: readonly RunningGateway[], ns: string, since: number) {
  for (const g of gateways) {
    const decision = await eventually(
      async () => {
        const d = await decisionOf(g, ns, 'staging');
        if (d.reason !== 'Soaking' || d.retryAt !== since + SOAK_MS)
          throw new Error(`staging: ${JSON.stringify(d)}`);
        return d;
      },
      { timeoutMs: 15_000 },
    );
    expect(decision.message).toMatch(
      new RegExp(
        `^dev has run 6\\.6\\.0 healthy for \\d+s of ${SOAK_TEXT}; staging waits \\d+m?s more$`,
      ),
    );
  }
}

/** The seconds of soak the API says staging waits for still. */
async function secondsLeft(g: RunningGateway, ns: string): Promise<number> {
  const { message } = await decisionOf(g, ns, 'staging');
  return Number(/waits (\d+)s more$/.exec(message)?.[1]);
}

function statusWrites(ns: string): number {
  const of = (verb: 'update' | 'patch') =>
    fleet.management.requests.count({
      verb,
      resource: 'pipelines.pipelines.weave.works',
      namespace: ns,
      subresource: 'status',
    });
  return of('update') + of('patch');
}

const stagingPromotions = (ns: string): number =>
  promoteEvents(fleet, ns).filter((e) => e.metadata.annotations?.environment === 'staging').length;

describe.each([2, 1])('a soak on staging with %i gateway replica(s)', (count) => {
  it('waits with the time left, resets on a failed dev rollout, survives a restart, promotes once', async () => {
    const ns = `soak-${String(count)}`;
    appWithSoak(ns);
    let replicas = await launch(ns, count);
    await waitSteady(fleet, replicas.gateways, ns);
    const first = replicas.gateways[0];
    const last = replicas.gateways.at(-1);
    if (first === undefined || last === undefined) throw new Error('no replica');

    // dev rolls out 6.6.0; only the first replica hears about it.
    const rolledAt = timeOf(replicas);
    const dev = rollOut(fleet.dev, ns, '6.6.0');
    await postSigned(first.url, '/v1/events/dev', upgradeBody(dev), fleet.key('dev'));
    const soak1 = await devSince(ns, '6.6.0');
    const since1 = Date.parse(soak1.time);
    expect(since1).toBeGreaterThanOrEqual(rolledAt);
    await everyReplicaSoaks(replicas.gateways, ns, since1);
    const pending = pipelineOf(fleet, ns).status?.conditions?.find(
      (c) => c.type === 'PromotionPending',
    );
    expect(pending).toMatchObject({ status: 'True', reason: 'Soaking' });
    expect(pending?.message).toContain(
      `staging: dev has run 6.6.0 healthy since ${soak1.time}; staging waits for ${SOAK_TEXT} of it, until `,
    );

    // Repeated events, a second apart on the gateways' clocks, re-check the Pipeline: the
    // API's time left counts down, and nothing is written.
    for (const g of replicas.gateways) await g.gateway.idle();
    const writes = statusWrites(ns);
    const left = [await secondsLeft(last, ns)];
    for (let i = 0; i < 3; i++) {
      step(replicas, 1_100);
      const answer = await postSigned(
        last.url,
        '/v1/events/dev',
        upgradeBody(dev),
        fleet.key('dev'),
      );
      expect(answer.status).toBe(202);
      for (const g of replicas.gateways) await g.gateway.idle();
      left.push(await secondsLeft(last, ns));
    }
    expect(left.every((s, i) => i === 0 || s < (left[i - 1] ?? 0))).toBe(true);
    expect(statusWrites(ns)).toBe(writes);
    expect(stagingPromotions(ns)).toBe(0);

    // A failed upgrade in dev (Ready=False, 6.6.0 still deployed): the soak is over.
    const failed = rollOutRelease(fleet.dev, ns, APP_NAME, '6.7.0', { fail: true }) as KubeObject;
    await postSigned(last.url, '/v1/events/dev', upgradeBody(failed), fleet.key('dev'));
    await eventually(
      () => pipelineOf(fleet, ns).status?.environments?.dev?.healthySince === undefined,
      { timeoutMs: 15_000 },
    );
    const brokenAt = timeOf(replicas);
    expect((await decisionOf(last, ns, 'staging')).reason).toBe('UpstreamNotReady');

    // dev is healthy at 6.6.0 again a second later: the soak starts again from that read.
    step(replicas, 1_000);
    const healed = rollOut(fleet.dev, ns, '6.6.0');
    await postSigned(first.url, '/v1/events/dev', upgradeBody(healed), fleet.key('dev'));
    const soak2 = await devSince(ns, '6.6.0', soak1);
    const since2 = Date.parse(soak2.time);
    expect(since2).toBeGreaterThanOrEqual(brokenAt + 1_000);
    await everyReplicaSoaks(replicas.gateways, ns, since2);

    // Every replica restarts a third into the soak, on the same time line (never back in it):
    // its start is read back from the status.
    await Promise.all(replicas.gateways.map((g) => g.close()));
    const offset = Math.max(replicas.offset, since2 + SOAK_MS / 3 - Date.now());
    const restartedAt = Date.now() + offset;
    replicas = await launch(ns, count, offset);
    expect(pipelineOf(fleet, ns).status?.environments?.dev?.healthySince).toEqual(soak2);
    await everyReplicaSoaks(replicas.gateways, ns, since2);

    // Close to its end, a pass on every replica; then no event: the gateways look again when
    // the soak ends, and promote staging once.
    step(replicas, since2 + SOAK_MS - LAST_MS - timeOf(replicas));
    await passEverywhere(replicas);
    expect(recordOf(fleet, ns, 'staging')).toBeUndefined();
    const record = await eventually(
      () => {
        const r = recordOf(fleet, ns, 'staging');
        if (r?.revision !== '6.6.0' || r.phase !== 'Succeeded')
          throw new Error(`staging's record is ${JSON.stringify(r)}`);
        return r;
      },
      { timeoutMs: 20_000 },
    );
    const attempted = Date.parse(record.lastAttemptedTime); // whole seconds, rounded down
    expect(attempted).toBeGreaterThanOrEqual(since2 + SOAK_MS - 1_000);
    // Counted from the stored start, not from the restart.
    expect(attempted).toBeLessThan(restartedAt + SOAK_MS - 1_000);

    // Long past the soak, after a pass on every replica: still the one promotion.
    step(replicas, SOAK_MS);
    await passEverywhere(replicas);
    expect(stagingPromotions(ns)).toBe(1);
    expect(recordOf(fleet, ns, 'staging')).toMatchObject({ attempt: 1, phase: 'Succeeded' });
    await Promise.all(replicas.gateways.map((g) => g.close()));
  }, 60_000);
});
