/**
 * Notifications that arrive, through real HTTP against kube-sim: a
 * receiver is down for an hour of compressed time (every replica's clock is stepped forward
 * 20 minutes at a time, as an NTP step would, while retries run at a compressed backoff) while
 * revisions R1, R2 and R3 are promoted dev -> staging -> prod; the gateway is restarted twice
 * and, with two replicas, the leader is killed once (its connections cut, as if its process
 * died: it neither renews its Lease nor writes again). When the receiver comes back it gets
 * every event it is owed, in order per (pipeline, environment); R1's and R2's undelivered
 * events are superseded and never arrive after R3's; a duplicate only ever carries an id
 * already seen; the official `standardwebhooks` library verifies every delivery.
 */
import { Webhook } from 'standardwebhooks';
import { describe, expect, it, vi } from 'vitest';
import { eventId } from '../../src/notify/facts.js';
import { outboxFacts } from '../../src/notify/outbox-record.js';
import type { AlertStatus } from '../../src/notify/alert-resource.js';
import {
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
import { NotifyReceiver } from '../support/notify-receiver.js';
import { announceRollout } from '../support/policy-harness.js';
import { tcpProxy, throughPort, type TcpProxy } from '../support/tcp-proxy.js';

const SECRET = `whsec_${Buffer.from('a notification key of 32 bytes!!').toString('base64')}`;
const ALERT_API = 'notifications.promotion-gateway.dev/v1alpha1';
const TIMINGS = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 200 };
const TWENTY_MINUTES = 20 * 60_000;

interface Replica {
  gw: RunningGateway;
  proxy: TcpProxy;
  dead: boolean;
}

async function scenario(replicaCount: 1 | 2): Promise<void> {
  const ns = `notify-${String(replicaCount)}`;
  const fleet: TestFleet = await startTestFleet();
  const receiver = new NotifyReceiver();
  await receiver.start();
  let offset = 0;
  let generation = 0;
  const replicas: Replica[] = [];
  const launch = async (): Promise<Replica> => {
    generation += 1;
    const proxy = await tcpProxy(fleet.management.port);
    const gw = await launchGateway(fleet, {
      instanceId: `${ns}-${String(generation)}`,
      start: false,
      managementKubeconfig: throughPort(
        fleet.management.kubeconfig('promotion-gateway'),
        proxy.port,
      ),
      config: {
        leaderElection: TIMINGS,
        // The receiver is on loopback, which an operator opens by writing its address.
        notifications: {
          intervalMs: 100,
          retryBaseMs: 50,
          retryMaxMs: 400,
          allowedUrlPrefixes: [receiver.url],
        },
      },
    });
    gw.advanceClock(offset);
    await gw.gateway.start();
    const replica = { gw, proxy, dead: false };
    replicas.push(replica);
    return replica;
  };
  const live = () => replicas.filter((r) => !r.dead);
  const stepClocks = () => {
    offset += TWENTY_MINUTES;
    for (const r of replicas) r.gw.advanceClock(TWENTY_MINUTES);
  };
  try {
    createApp(fleet, ns);
    fleet.management.apply({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'hooks', namespace: ns },
      type: 'Opaque',
      data: { signingSecret: Buffer.from(SECRET).toString('base64') },
    });
    for (let i = 0; i < replicaCount; i++) await launch();
    await waitSteady(
      fleet,
      live().map((r) => r.gw),
      ns,
    );
    fleet.management.apply({
      apiVersion: ALERT_API,
      kind: 'PromotionAlert',
      metadata: { name: 'hooks', namespace: ns },
      spec: { address: receiver.url, secretRef: { name: 'hooks' }, timeout: '1s' },
    });

    const promote = async (version: string) => {
      const refused = receiver.refused;
      const gws = live().map((r) => r.gw);
      await announceRollout(fleet, gws, ns, 'dev', version);
      await eventually(
        () =>
          recordOf(fleet, ns, 'staging')?.phase === 'Succeeded' &&
          recordOf(fleet, ns, 'staging')?.revision === version,
        { timeoutMs: 20_000 },
      );
      await announceRollout(fleet, gws, ns, 'staging', version);
      await eventually(
        () =>
          recordOf(fleet, ns, 'prod')?.phase === 'Succeeded' &&
          recordOf(fleet, ns, 'prod')?.revision === version,
        { timeoutMs: 20_000 },
      );
      // Flux applies it: prod runs what was promoted (so no drift is seen as the clocks step).
      await announceRollout(fleet, gws, ns, 'prod', version);
      // The leader tries the receiver (and is refused) while it is down.
      await eventually(() => receiver.refused > refused, { timeoutMs: 20_000 });
    };
    const restart = async (replica: Replica) => {
      await replica.gw.close();
      replica.dead = true;
      await launch();
    };
    const leader = () =>
      eventually(() => {
        const leading = live().filter((r) => r.gw.gateway.status().leader);
        expect(leading).toHaveLength(1);
        return leading[0]!;
      });

    await promote('7.1.0');
    await restart(await leader()); // restart 1: the leader, gracefully
    stepClocks();
    await promote('7.2.0');
    await restart(live()[0]!); // restart 2
    stepClocks();
    if (replicaCount === 2) {
      const killed = await leader();
      await killed.proxy.cut();
      killed.dead = true;
    }
    await promote('7.3.0');
    stepClocks();
    // The receiver was down for the whole hour: every attempt so far answered 503.
    expect(receiver.accepted).toHaveLength(0);
    receiver.signedSince = Math.floor((Date.now() + offset) / 1000) - 5;
    receiver.up = true;

    const owed = owedEvents(fleet, ns);
    const alertStatus = () =>
      fleet.management.get(ALERT_API, 'PromotionAlert', ns, 'hooks')?.status as
        AlertStatus | undefined;
    await eventually(
      () => {
        const ids = new Set(receiver.accepted.map((d) => String(d.headers['webhook-id'])));
        expect([...owed.keys()].filter((id) => !ids.has(id))).toEqual([]);
        expect(alertStatus()?.backlog).toBe(0);
      },
      { timeoutMs: 30_000 },
    );

    // Every delivery verifies with the official library, and carries what was owed. The
    // library checks the timestamp against its own clock: the receiver's is the gateway's.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + offset });
    const webhook = new Webhook(SECRET);
    const seen = new Map<string, string>();
    const order = new Map<string, { revision: string; time: string }[]>();
    for (const d of receiver.accepted) {
      const payload = webhook.verify(d.body, d.headers as Record<string, string>) as {
        type: string;
        timestamp: string;
        data: { environment: string; revision: string; type: string };
      };
      const id = String(d.headers['webhook-id']);
      // A duplicate is the same event again: same id, same body.
      if (seen.has(id)) expect(d.body).toBe(seen.get(id));
      seen.set(id, d.body);
      expect(owed.has(id)).toBe(true);
      const stream = order.get(payload.data.environment) ?? [];
      stream.push({ revision: payload.data.revision, time: payload.timestamp });
      order.set(payload.data.environment, stream);
    }
    vi.useRealTimers();
    // In order per (pipeline, environment): never an older revision or time after a newer one.
    for (const stream of order.values()) {
      const times = stream.map((s) => s.time);
      expect(times).toEqual([...times].sort());
      expect(stream.every((s) => s.revision === '7.3.0')).toBe(true);
    }
    // R1's and R2's undelivered events were superseded (recorded and counted), never sent.
    const status = alertStatus();
    const superseded = (status?.recent ?? []).filter((r) => r.result === 'Superseded');
    expect(new Set(superseded.map((r) => r.revision))).toEqual(new Set(['7.1.0', '7.2.0']));
    // Every event the Pipeline recorded for R1 and R2 (the outbox: their promotions, and any
    // target seen unhealthy while rolling out) is accounted for as superseded.
    const older = outboxFacts(pipelineOf(fleet, ns)).filter((f) => f.revision !== '7.3.0');
    expect(older.length).toBeGreaterThanOrEqual(8);
    expect(status?.counters?.superseded).toBe(older.length);
    expect(status?.counters?.failed).toBeGreaterThanOrEqual(3);
    expect(status?.counters?.dropped ?? 0).toBe(0);
    expect(status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'True',
      reason: 'Succeeded',
    });
    const r1Succeeded = [...owedEvents(fleet, ns, '7.1.0').entries()].find(
      ([, t]) => t === 'prod PromotionSucceeded',
    );
    expect(r1Succeeded).toBeDefined();
    expect(seen.has(r1Succeeded?.[0] ?? '')).toBe(false);
  } finally {
    vi.useRealTimers();
    await Promise.all(replicas.map((r) => r.gw.close().catch(() => undefined)));
    await receiver.close();
    await fleet.close();
  }
}

/** The events the alert owes for `revision` (default the last), by id: "env Type". */
function owedEvents(fleet: TestFleet, ns: string, revision = '7.3.0'): Map<string, string> {
  const pipeline = pipelineOf(fleet, ns);
  const alert = fleet.management.get(ALERT_API, 'PromotionAlert', ns, 'hooks');
  const uid = String((alert?.metadata as { uid?: string } | undefined)?.uid);
  const owed = new Map<string, string>();
  for (const fact of outboxFacts(pipeline)) {
    if (fact.revision !== revision) continue;
    owed.set(eventId(uid, fact), `${fact.environment} ${fact.type}`);
  }
  return owed;
}

describe('notifications that arrive', () => {
  it('one replica, restarted twice, while the receiver is down an hour', async () => {
    await scenario(1);
  }, 120_000);

  it('two replicas, restarted twice and the leader killed once', async () => {
    await scenario(2);
  }, 120_000);
});
