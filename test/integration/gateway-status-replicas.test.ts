/**
 * One truth in the Pipeline status, with two replicas as shipped (and with one): events reach
 * only one replica, the other does not hold the resync Lease, and yet once the Pipeline is idle
 * (prod waiting for an approval) its status is never written again and never shows an older
 * view. kube-sim counts every PUT/PATCH on `pipelines/status`; the status is sampled while a
 * minute passes on the gateways' clocks, in steps, each followed by a pass on the Lease holder
 * (as its periodic ones, which run meanwhile too), with repeated events arriving at the replica
 * that missed the rollout.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PipelineStatus } from '../../src/pipeline/pipeline-resource.js';
import {
  createApp,
  eventually,
  launchGateway,
  pipelineOf,
  postSigned,
  recordOf,
  rollOut,
  startTestFleet,
  upgradeBody,
  waitSteady,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';

/**
 * How much time passes on the gateways' clocks while an idle Pipeline is watched for writes
 * (as the idle-fleet benchmark's window: 60 s).
 */
const IDLE_MS = 60_000;
/** The steps it passes in, a pass after each; every fifth brings a repeated event. */
const ROUNDS = 30;
const EVENT_EVERY = 5;
const TIMINGS = { leaseDurationMs: 5_000, renewDeadlineMs: 4_000, retryPeriodMs: 200 };

let fleet: TestFleet;
const running: RunningGateway[] = [];

beforeAll(async () => {
  fleet = await startTestFleet();
});
afterAll(async () => {
  await Promise.all(running.map((g) => g.close()));
  await fleet.close();
});

/** Status writes (PUT or PATCH of the status subresource) of the Pipelines in `ns`. */
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

/** Replicas with periodic passes every second (only the Lease holder makes them). */
async function replicas(ns: string, count: number): Promise<RunningGateway[]> {
  const started = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      launchGateway(fleet, {
        instanceId: `${ns}-${String(i)}`,
        config: {
          resync: { intervalMs: 1_000 },
          leaderElection: { ...TIMINGS, name: `${ns}-resync` },
        },
      }),
    ),
  );
  running.push(...started);
  return started;
}

/**
 * A pass on the replica holding the Lease, where the periodic ones run, then every replica
 * idle: any status write that the pass or an event before it causes has been made.
 */
async function leaderPass(gateways: readonly RunningGateway[]): Promise<void> {
  const leader = await eventually(() => {
    const holder = gateways.find((g) => g.gateway.status().leader);
    if (holder === undefined) throw new Error('no replica holds the Lease yet');
    return holder;
  });
  await leader.gateway.resync();
  await Promise.all(gateways.map((g) => g.gateway.idle()));
}

/** What a reader sees of the view: the targets' revisions and what prod waits for. */
function viewOf(status: PipelineStatus | undefined): string {
  const envs = status?.environments ?? {};
  const revisions = ['dev', 'staging', 'prod'].map((e) => envs[e]?.targets?.[0]?.revision ?? '-');
  return `${revisions.join(',')} waiting=${envs.prod?.waitingApproval?.revision ?? '-'}`;
}

describe.concurrent.each([2, 1])('the Pipeline status with %i replica(s)', (count) => {
  it('is written until it shows the truth, then never again while the Pipeline is idle', async () => {
    const ns = `status-idle-${String(count)}`;
    createApp(fleet, ns, { prodPromotion: { approval: { minApprovals: 1 } } });
    const gateways = await replicas(ns, count);
    await waitSteady(fleet, gateways, ns);
    const [first] = gateways;
    const last = gateways.at(-1);
    if (first === undefined || last === undefined) throw new Error('no replica');

    // Flux rolls dev out and tells the first replica only; the others hear nothing.
    const dev = rollOut(fleet.dev, ns, '6.6.0');
    await postSigned(first.url, '/v1/events/dev', upgradeBody(dev), fleet.key('dev'));
    await eventually(() => recordOf(fleet, ns, 'staging')?.phase === 'Succeeded');
    const staging = rollOut(fleet.staging, ns, '6.6.0');
    await postSigned(first.url, '/v1/events/staging', upgradeBody(staging), fleet.key('staging'));
    const truth = '6.6.0,6.6.0,6.5.0 waiting=6.6.0';
    await eventually(() => viewOf(pipelineOf(fleet, ns).status) === truth, {
      timeoutMs: 20_000,
    });
    // Settled: every replica has caught up (the one that missed the events too), and a
    // whole pass writes nothing.
    await eventually(
      async () => {
        const before = statusWrites(ns);
        await leaderPass(gateways);
        return statusWrites(ns) === before;
      },
      { timeoutMs: 30_000 },
    );

    const writesBefore = statusWrites(ns);
    const seen = new Set<string>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const g of gateways) g.advanceClock(IDLE_MS / ROUNDS);
      // Now and then the last replica hears a repeated event about dev: a hint, no news.
      if (round % EVENT_EVERY === 0) {
        const answer = await postSigned(
          last.url,
          '/v1/events/dev',
          upgradeBody(dev),
          fleet.key('dev'),
        );
        expect(answer.status).toBe(202);
        seen.add(viewOf(pipelineOf(fleet, ns).status));
      }
      await leaderPass(gateways);
      seen.add(viewOf(pipelineOf(fleet, ns).status));
    }

    expect([...seen]).toStrictEqual([truth]);
    expect(statusWrites(ns) - writesBefore).toBe(0);
  }, 60_000);
});
