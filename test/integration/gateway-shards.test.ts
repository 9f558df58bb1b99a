/**
 * A fleet served by shards (docs/operations.md, Sharding): three gateway Deployments on one
 * management cluster, each with its own Pipeline selector and its own resync Lease, with one and
 * with two replicas per shard. Each holds, checks and writes only the Pipelines it selects; an
 * event every shard receives (one Flux Alert per shard) promotes once, by the shard that serves
 * the Pipeline; a Pipeline relabelled moves to the other shard without a restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LeaseSpec } from '../../src/kube/ports.js';
import {
  APP_NAME,
  PIPELINE_API,
  createApp,
  eventually,
  launchGateway,
  pipelineOf,
  postSigned,
  recordOf,
  rollOut,
  scrapeMetric,
  startTestFleet,
  upgradeBody,
  waitSteady,
} from '../support/gateway-harness.js';
import type { RunningGateway, TestFleet } from '../support/gateway-harness.js';

const LABEL = 'promotion-gateway.io/shard';
/** Each shard: its name, its selector, and the namespace of the one app it serves at first. */
const SHARDS = [
  { name: 'eu', pipelineSelector: `${LABEL}=eu`, ns: 'shard-eu', labels: { [LABEL]: 'eu' } },
  { name: 'us', pipelineSelector: `${LABEL}=us`, ns: 'shard-us', labels: { [LABEL]: 'us' } },
  { name: 'main', pipelineSelector: `!${LABEL}`, ns: 'shard-none', labels: undefined },
] as const;
type Shard = (typeof SHARDS)[number];

const LEASE_BASE = 'promotion-gateway-resync';
const TIMINGS = { leaseDurationMs: 5_000, renewDeadlineMs: 4_000, retryPeriodMs: 200 };

function leaseHolder(fleet: TestFleet, name: string): string | undefined {
  const lease = fleet.management.get('coordination.k8s.io/v1', 'Lease', 'flux-system', name) as
    { spec?: LeaseSpec } | undefined;
  return lease?.spec?.holderIdentity;
}

describe.each([1, 2])('the real gateway on kube-sim: three shards of %i replica(s)', (count) => {
  let fleet: TestFleet;
  const replicas = new Map<Shard['name'], RunningGateway[]>();
  const all = () => [...replicas.values()].flat();
  const idsOf = (shard: Shard['name']) =>
    Array.from({ length: count }, (_, i) => `${shard}-${String(i)}`);

  beforeAll(async () => {
    fleet = await startTestFleet();
    for (const s of SHARDS)
      createApp(fleet, s.ns, s.labels === undefined ? {} : { labels: s.labels });
    for (const s of SHARDS) {
      const gateways = await Promise.all(
        idsOf(s.name).map((instanceId) =>
          launchGateway(fleet, {
            instanceId,
            config: {
              sharding: { name: s.name, pipelineSelector: s.pipelineSelector },
              leaderElection: TIMINGS,
            },
          }),
        ),
      );
      replicas.set(s.name, gateways);
    }
    for (const s of SHARDS) await waitSteady(fleet, replicas.get(s.name) ?? [], s.ns);
  });
  afterAll(async () => {
    await Promise.all(all().map((g) => g.close()));
    await fleet.close();
  });

  it('loads only the Pipelines its selector matches, under a Lease of its own', async () => {
    for (const s of SHARDS) {
      for (const g of replicas.get(s.name) ?? []) {
        const status = g.gateway.status();
        expect(status.shard).toBe(s.name);
        expect(status.pipelinesLoaded).toBe(1);
        for (const other of SHARDS) {
          const view = g.gateway.view({ namespace: other.ns, name: APP_NAME });
          expect(view === undefined).toBe(other !== s);
        }
      }
      // One Lease per shard, held by one of that shard's own replicas.
      const holder = await eventually(() => {
        const h = leaseHolder(fleet, `${LEASE_BASE}-${s.name}`);
        if (h === undefined) throw new Error(`no holder of shard ${s.name}'s Lease yet`);
        return h;
      });
      expect(idsOf(s.name)).toContain(holder);
      // Each replica says which shard it leads, or not: one leader per shard.
      const series = (
        await Promise.all(
          (replicas.get(s.name) ?? []).map((g) =>
            scrapeMetric(g.url, 'promotion_gateway_resync_leader'),
          ),
        )
      ).flat();
      expect(series.map((x) => x.labels)).toEqual(series.map(() => ({ shard: s.name })));
      expect(series.reduce((n, x) => n + x.value, 0)).toBe(1);
    }
    expect(leaseHolder(fleet, LEASE_BASE)).toBeUndefined();
  });

  it('promotes once, by the shard serving the Pipeline, when every shard gets the event', async () => {
    const eu = SHARDS[0];
    const writesBefore = new Map(all().map((g) => [g, g.gateway.status().statusWrites.processed]));
    const body = upgradeBody(rollOut(fleet.dev, eu.ns, '6.6.0'));
    const answers = await Promise.all(
      all().map((g) => postSigned(g.url, '/v1/events/dev', body, fleet.key('dev'))),
    );
    expect(answers.map((a) => a.status)).toEqual(all().map(() => 202));
    const record = await eventually(() => {
      const r = recordOf(fleet, eu.ns, 'staging');
      if (r?.revision !== '6.6.0' || r.phase !== 'Succeeded')
        throw new Error(`staging's record is ${JSON.stringify(r)}`);
      return r;
    });
    for (const g of all()) await g.gateway.idle();
    expect(record.attempt).toBe(1);
    expect(idsOf('eu')).toContain(record.claimedBy);
    // The other shards dropped the event unread: they wrote no status at all.
    for (const s of SHARDS.slice(1)) {
      for (const g of replicas.get(s.name) ?? [])
        expect(g.gateway.status().statusWrites.processed).toBe(writesBefore.get(g));
      expect(recordOf(fleet, s.ns, 'staging')).toBeUndefined();
    }
  });

  it('hands a relabelled Pipeline to the shard its new label selects', async () => {
    const [, us, main] = SHARDS;
    const object = fleet.management.get(PIPELINE_API, 'Pipeline', main.ns, APP_NAME);
    if (object === undefined) throw new Error('no Pipeline');
    const metadata = object.metadata as { labels?: Record<string, string> };
    fleet.management.apply({ ...object, metadata: { ...metadata, labels: { [LABEL]: 'us' } } });
    const ref = { namespace: main.ns, name: APP_NAME };
    await eventually(() => {
      for (const g of replicas.get('us') ?? [])
        if (g.gateway.view(ref) === undefined) throw new Error('us has not loaded it yet');
      for (const g of replicas.get('main') ?? [])
        if (g.gateway.view(ref) !== undefined) throw new Error('main still holds it');
    });
    for (const g of replicas.get('us') ?? []) expect(g.gateway.status().pipelinesLoaded).toBe(2);

    const body = upgradeBody(rollOut(fleet.dev, main.ns, '6.6.0'));
    for (const g of all()) await postSigned(g.url, '/v1/events/dev', body, fleet.key('dev'));
    const record = await eventually(() => {
      const r = recordOf(fleet, main.ns, 'staging');
      if (r?.phase !== 'Succeeded') throw new Error(`staging's record is ${JSON.stringify(r)}`);
      return r;
    });
    expect(record.revision).toBe('6.6.0');
    expect(idsOf(us.name)).toContain(record.claimedBy);
    expect(pipelineOf(fleet, main.ns).metadata.labels).toEqual({ [LABEL]: 'us' });
  });
});
