/**
 * Missing events, end to end, with two replicas as shipped and with one: dev's Flux has an
 * Alert for flux-system only (its events about the app namespace never come) and the one event
 * about the app that does come is signed with a wrong key (401). A rollout in the app namespace
 * is then found by the next resync: counted in /metrics, one warning for the cluster, and
 * EventsMissing on the Pipelines, until an event about the target arrives at either replica.
 * With events for every rollout, at either replica, nothing is counted and no condition appears.
 */
import { installRelease, rollOutRelease } from 'kube-sim/flux';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Condition, Pipeline } from '../../src/pipeline/pipeline-resource.js';
import { UNANNOUNCED_MESSAGE } from '../../src/resync/unannounced.js';
import {
  APP_NAME,
  ENVIRONMENTS,
  HR_API,
  PIPELINE_API,
  createApp,
  eventually,
  launchGateway,
  metricSum,
  postSigned,
  rollOut,
  startTestFleet,
  upgradeBody,
  waitSteady,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';
import type { KubeObject } from '../../src/kube/ports.js';

const METRIC = 'promotion_gateway_unannounced_changes_total';
const WORKER = 'worker';

let fleet: TestFleet;
const running: RunningGateway[] = [];

beforeAll(async () => {
  fleet = await startTestFleet();
});
afterAll(async () => {
  await Promise.all(running.map((g) => g.close()));
  await fleet.close();
});

interface Replica {
  gw: RunningGateway;
  lines: string[];
}

async function replicas(ns: string, count: number): Promise<Replica[]> {
  const started = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const lines: string[] = [];
      const gw = await launchGateway(fleet, {
        instanceId: `${ns}-${String(i)}`,
        logLines: lines,
        // Only this test's Pipelines: the concurrent tests' gateways must not count each other's.
        config: { pipelineNamespaces: [ns], leaderElection: { name: `${ns}-resync` } },
      });
      return { gw, lines };
    }),
  );
  running.push(...started.map((r) => r.gw));
  return started;
}

/** A second app, `worker`, in the same namespace as podinfo, with a Pipeline of its own. */
function createWorker(ns: string): void {
  for (const env of ENVIRONMENTS)
    installRelease(fleet.env(env), { namespace: ns, name: WORKER }, '1.0.0');
  fleet.management.apply({
    apiVersion: PIPELINE_API,
    kind: 'Pipeline',
    metadata: { name: WORKER, namespace: ns },
    spec: {
      appRef: { apiVersion: HR_API, kind: 'HelmRelease', name: WORKER },
      promotion: { strategy: { notification: {} } },
      environments: ENVIRONMENTS.map((env) => ({
        name: env,
        targets: [
          {
            namespace: ns,
            clusterRef: { kind: 'GitopsCluster', name: env, namespace: 'flux-system' },
          },
        ],
      })),
    },
  });
}

function stored(ns: string, name: string): Pipeline {
  const object = fleet.management.get(PIPELINE_API, 'Pipeline', ns, name);
  if (object === undefined) throw new Error(`no Pipeline ${ns}/${name}`);
  return object as unknown as Pipeline;
}

function eventsMissing(ns: string, name: string): Condition | undefined {
  return stored(ns, name).status?.conditions?.find((c) => c.type === 'EventsMissing');
}

/** The warnings about unannounced changes a replica logged, parsed. */
function warnings(
  r: Replica,
): { cluster: string; namespaces: string[]; changes: number; objects: string[] }[] {
  return r.lines
    .map(
      (l) =>
        JSON.parse(l) as {
          msg: string;
          cluster: string;
          namespaces: string[];
          changes: number;
          objects: string[];
        },
    )
    .filter((l) => l.msg === UNANNOUNCED_MESSAGE);
}

async function idle(all: readonly Replica[]): Promise<void> {
  for (const r of all) await r.gw.gateway.idle();
}

/** Status writes of the Pipelines in `ns` so far (PUT or PATCH of the status subresource). */
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

/** Whether every replica's own view shows dev (or `env`) at `version`. */
function everyReplicaSees(
  all: readonly Replica[],
  ns: string,
  env: string,
  version: string,
): boolean {
  return all.every(
    (r) =>
      r.gw.gateway.view({ namespace: ns, name: APP_NAME })?.targets[env]?.[0]?.revision === version,
  );
}

describe.concurrent.each([2, 1])('missing events with %i replica(s)', (count) => {
  it('are counted, warned about once per cluster and shown on the Pipelines until an event arrives', async () => {
    const ns = `unannounced-${String(count)}`;
    createApp(fleet, ns);
    createWorker(ns);
    const all = await replicas(ns, count);
    const [first, last] = [all[0], all.at(-1)];
    if (first === undefined || last === undefined) throw new Error('no replica');
    await waitSteady(
      fleet,
      all.map((r) => r.gw),
      ns,
    );
    await eventually(
      () => stored(ns, WORKER).status?.environments?.dev?.targets?.[0]?.ready === true,
    );
    await idle(all);

    // dev's Alert covers flux-system only: its events are about objects no Pipeline references.
    const infra = installRelease(fleet.dev, { namespace: 'flux-system', name: 'infra' }, '1.0.0');
    const infraBody = upgradeBody(infra as unknown as KubeObject);
    expect(
      (await postSigned(first.gw.url, '/v1/events/dev', infraBody, fleet.key('dev'))).status,
    ).toBe(202);
    // Flux rolls both apps out in the app namespace; the one event sent has a wrong key.
    const podinfo = rollOut(fleet.dev, ns, '6.6.0');
    rollOutRelease(fleet.dev, ns, WORKER, '2.0.0');
    const wrongKey = Buffer.from('not-the-providers-key', 'utf8');
    expect(
      (await postSigned(last.gw.url, '/v1/events/dev', upgradeBody(podinfo), wrongKey)).status,
    ).toBe(401);

    const report = await first.gw.gateway.resync();
    await idle(all);
    expect(report.unannounced).toBe(2);
    expect(await metricSum(first.gw.url, METRIC, { cluster: 'dev', kind: 'HelmRelease' })).toBe(2);
    // One warning for dev, naming the namespace and both objects; none from a replica that made
    // no pass.
    const found = warnings(first).map((w) => [w.cluster, w.namespaces, w.changes, w.objects]);
    expect(found).toEqual([
      [
        'dev',
        [ns],
        2,
        [
          `HelmRelease ${ns}/podinfo: 6.5.0 Healthy -> 6.6.0 Healthy`,
          `HelmRelease ${ns}/worker: 1.0.0 Healthy -> 2.0.0 Healthy`,
        ],
      ],
    ]);
    if (count > 1) expect(warnings(last)).toEqual([]);
    // Both Pipelines show it after that one pass (the status writes are behind idle()).
    for (const name of [APP_NAME, WORKER]) {
      expect(eventsMissing(ns, name)).toMatchObject({
        status: 'True',
        reason: 'UnannouncedChanges',
      });
      expect(eventsMissing(ns, name)?.message).toContain(`dev: HelmRelease ${ns}/${name}`);
      expect(stored(ns, name).status?.environments?.dev?.targets?.[0]?.unannounced).toBe(true);
    }

    // The next pass finds nothing new: counted and warned about once.
    expect((await first.gw.gateway.resync()).unannounced).toBe(0);
    expect(await metricSum(first.gw.url, METRIC)).toBe(2);
    expect(warnings(first)).toHaveLength(1);

    // The Alert is fixed: an event about podinfo reaches the other replica. Its mark goes;
    // worker, still unannounced, keeps its condition.
    expect(
      (await postSigned(last.gw.url, '/v1/events/dev', upgradeBody(podinfo), fleet.key('dev')))
        .status,
    ).toBe(202);
    await eventually(() => eventsMissing(ns, APP_NAME)?.status === 'False');
    expect(eventsMissing(ns, APP_NAME)).toMatchObject({ reason: 'EventsArriving' });
    expect(
      stored(ns, APP_NAME).status?.environments?.dev?.targets?.[0]?.unannounced,
    ).toBeUndefined();
    expect(eventsMissing(ns, WORKER)).toMatchObject({ status: 'True' });

    // Settled, further passes write nothing: the mark and the condition are not re-added.
    await idle(all);
    const writes = statusWrites(ns);
    for (const r of all) await r.gw.gateway.resync();
    await idle(all);
    expect(statusWrites(ns) - writes).toBe(0);
    expect(eventsMissing(ns, APP_NAME)).toMatchObject({
      status: 'False',
      reason: 'EventsArriving',
    });
  }, 60_000);

  it('count nothing when every rollout is announced, whichever replica hears it', async () => {
    const ns = `announced-${String(count)}`;
    createApp(fleet, ns);
    const all = await replicas(ns, count);
    const [first, last] = [all[0], all.at(-1)];
    if (first === undefined || last === undefined) throw new Error('no replica');
    await waitSteady(
      fleet,
      all.map((r) => r.gw),
      ns,
    );

    const dev = rollOut(fleet.dev, ns, '6.6.0');
    expect(
      (await postSigned(first.gw.url, '/v1/events/dev', upgradeBody(dev), fleet.key('dev'))).status,
    ).toBe(202);
    await eventually(() => everyReplicaSees(all, ns, 'dev', '6.6.0'), { timeoutMs: 20_000 });
    const staging = rollOut(fleet.staging, ns, '6.6.0');
    const body = upgradeBody(staging);
    expect(
      (await postSigned(last.gw.url, '/v1/events/staging', body, fleet.key('staging'))).status,
    ).toBe(202);
    await eventually(() => everyReplicaSees(all, ns, 'staging', '6.6.0'), { timeoutMs: 20_000 });
    await idle(all);

    for (const r of all) expect((await r.gw.gateway.resync()).unannounced).toBe(0);
    await idle(all);
    for (const r of all) {
      expect(await metricSum(r.gw.url, METRIC)).toBe(0);
      expect(warnings(r)).toEqual([]);
    }
    expect(eventsMissing(ns, APP_NAME)).toBeUndefined();
    const records = Object.values(stored(ns, APP_NAME).status?.environments ?? {}).flatMap(
      (e) => e.targets ?? [],
    );
    expect(records.map((t) => t.revision)).toEqual(['6.6.0', '6.6.0', '6.5.0']);
    expect(records.filter((t) => t.unannounced !== undefined)).toEqual([]);
  }, 60_000);
});
