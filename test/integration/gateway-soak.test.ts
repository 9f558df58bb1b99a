/**
 * A soak on staging through the real gateway (two replicas, then one) on kube-sim: once dev
 * runs 6.6.0, staging waits (Soaking, the time left in the API, a steady message in the status
 * that repeated events do not rewrite); a failed rollout in dev resets the soak; a restart of
 * every replica keeps its start (stored in the Pipeline status); and staging is promoted exactly
 * once, the soak after dev was last seen healthy, by the gateways looking again by themselves.
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

/** staging's soak: long enough to restart every replica inside it, short for a test. */
const SOAK_MS = 8_000;

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
    soak: { duration: `${String(SOAK_MS / 1000)}s` },
  };
  fleet.management.apply({ ...pipeline, metadata: { name: APP_NAME, namespace: ns }, spec });
}

async function launch(ns: string, count: number): Promise<RunningGateway[]> {
  return Promise.all(
    Array.from({ length: count }, (_, i) =>
      launchGateway(fleet, {
        instanceId: `${ns}-${String(i)}`,
        config: {
          jwt: viewer.jwt,
          leaderElection: { name: `${ns}-resync` },
        },
      }),
    ),
  );
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
      /^dev has run 6\.6\.0 healthy for \d+s of 8s; staging waits [1-8]s more$/,
    );
  }
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each([2, 1])('a soak on staging with %i gateway replica(s)', (count) => {
  it('waits with the time left, resets on a failed dev rollout, survives a restart, promotes once', async () => {
    const ns = `soak-${String(count)}`;
    appWithSoak(ns);
    let gateways = await launch(ns, count);
    await waitSteady(fleet, gateways, ns);
    const first = gateways[0];
    const last = gateways.at(-1);
    if (first === undefined || last === undefined) throw new Error('no replica');

    // dev rolls out 6.6.0; only the first replica hears about it.
    const rolledAt = Date.now();
    const dev = rollOut(fleet.dev, ns, '6.6.0');
    await postSigned(first.url, '/v1/events/dev', upgradeBody(dev), fleet.key('dev'));
    const soak1 = await devSince(ns, '6.6.0');
    const since1 = Date.parse(soak1.time);
    expect(since1).toBeGreaterThanOrEqual(rolledAt);
    await everyReplicaSoaks(gateways, ns, since1);
    const pending = pipelineOf(fleet, ns).status?.conditions?.find(
      (c) => c.type === 'PromotionPending',
    );
    expect(pending).toMatchObject({ status: 'True', reason: 'Soaking' });
    expect(pending?.message).toContain(
      `staging: dev has run 6.6.0 healthy since ${soak1.time}; staging waits for 8s of it, until `,
    );

    // Repeated events re-check the Pipeline (the API's time left counts down), and write nothing.
    for (const g of gateways) await g.gateway.idle();
    const writes = statusWrites(ns);
    for (let i = 0; i < 3; i++) {
      await sleep(1_100);
      const answer = await postSigned(
        last.url,
        '/v1/events/dev',
        upgradeBody(dev),
        fleet.key('dev'),
      );
      expect(answer.status).toBe(202);
      for (const g of gateways) await g.gateway.idle();
    }
    expect(statusWrites(ns)).toBe(writes);
    expect(stagingPromotions(ns)).toBe(0);

    // A failed upgrade in dev (Ready=False, 6.6.0 still deployed): the soak is over.
    const failed = rollOutRelease(fleet.dev, ns, APP_NAME, '6.7.0', { fail: true }) as KubeObject;
    await postSigned(last.url, '/v1/events/dev', upgradeBody(failed), fleet.key('dev'));
    await eventually(
      () => pipelineOf(fleet, ns).status?.environments?.dev?.healthySince === undefined,
      { timeoutMs: 15_000 },
    );
    const brokenAt = Date.now();
    expect((await decisionOf(last, ns, 'staging')).reason).toBe('UpstreamNotReady');

    // dev is healthy at 6.6.0 again: the soak starts again from that read.
    await sleep(1_000);
    const healed = rollOut(fleet.dev, ns, '6.6.0');
    await postSigned(first.url, '/v1/events/dev', upgradeBody(healed), fleet.key('dev'));
    const soak2 = await devSince(ns, '6.6.0', soak1);
    const since2 = Date.parse(soak2.time);
    expect(since2).toBeGreaterThan(since1 + 1_000);
    await everyReplicaSoaks(gateways, ns, since2);

    // Every replica restarts inside the soak: its start is read back from the status.
    await sleep(Math.max(0, since2 + 2_000 - Date.now()));
    await Promise.all(gateways.map((g) => g.close()));
    gateways = await launch(ns, count);
    const restartedAt = Date.now();
    expect(restartedAt).toBeLessThan(since2 + SOAK_MS - 1_500);
    expect(pipelineOf(fleet, ns).status?.environments?.dev?.healthySince).toEqual(soak2);
    await everyReplicaSoaks(gateways, ns, since2);

    // No event: the gateways look again when the soak ends, and promote staging once.
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
    expect(attempted).toBeLessThan(restartedAt + SOAK_MS - 1_000);
    expect(brokenAt).toBeLessThan(since2);
    for (const g of gateways) await g.gateway.idle();
    await sleep(500);
    expect(stagingPromotions(ns)).toBe(1);
    expect(record.attempt).toBe(1);
    await Promise.all(gateways.map((g) => g.close()));
  }, 90_000);
});
