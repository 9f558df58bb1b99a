/**
 * Events that were owed are never lost, through real HTTP against kube-sim, on one replica and
 * on two: the receiver is down while prod waits for an approval; the approval is recorded during
 * the outage (so the wait is over in the status before anything was delivered); the leader is
 * killed once (its connections cut, as if its process died), or with one replica it is
 * restarted. When the receiver comes back it gets WaitingForApproval, then AuthorizationRecorded,
 * then the promotion, in that order; every attempt of an event carried the same body (at least
 * three attempts of the wait alone); and the alert's status and the metrics account for every
 * event the Pipeline recorded: delivered + superseded + dropped = owed.
 */
import { describe, expect, it } from 'vitest';
import type { AlertStatus } from '../../src/notify/alert-resource.js';
import { eventId } from '../../src/notify/facts.js';
import { outboxFacts } from '../../src/notify/outbox-record.js';
import {
  approver,
  approverConfig,
  postStatement,
  statement,
  type TestApprover,
} from '../support/authorizations.js';
import {
  APP_NAME,
  createApp,
  eventually,
  launchGateway,
  pipelineOf,
  recordOf,
  scrapeMetric,
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
const VERSION = '6.6.0';

interface Replica {
  gw: RunningGateway;
  proxy: TcpProxy;
  dead: boolean;
  /** Stopped (its metrics gone with it); it delivered nothing while the receiver was down. */
  closed?: boolean;
}

/** The fleet, one app with prod gated, `count` replicas, and an alert to a receiver that is down. */
async function setUp(count: 1 | 2) {
  const fleet: TestFleet = await startTestFleet();
  const alice: TestApprover = await approver('alice');
  const receiver = new NotifyReceiver();
  await receiver.start();
  const ns = `owed-${String(count)}`;
  const replicas: Replica[] = [];
  let generation = 0;
  const launch = async (): Promise<Replica> => {
    generation += 1;
    const proxy = await tcpProxy(fleet.management.port);
    const gw = await launchGateway(fleet, {
      instanceId: `${ns}-${String(generation)}`,
      managementKubeconfig: throughPort(
        fleet.management.kubeconfig('promotion-gateway'),
        proxy.port,
      ),
      config: {
        leaderElection: TIMINGS,
        approvals: { approvers: approverConfig([alice]) },
        notifications: {
          intervalMs: 100,
          retryBaseMs: 50,
          retryMaxMs: 200,
          allowedUrlPrefixes: [receiver.url],
        },
      },
    });
    const replica = { gw, proxy, dead: false };
    replicas.push(replica);
    return replica;
  };
  createApp(fleet, ns, { prodPromotion: { approval: { minApprovals: 1 } } });
  fleet.management.apply({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'hooks', namespace: ns },
    type: 'Opaque',
    data: { signingSecret: Buffer.from(SECRET).toString('base64') },
  });
  for (let i = 0; i < count; i++) await launch();
  await waitSteady(
    fleet,
    replicas.map((r) => r.gw),
    ns,
  );
  fleet.management.apply({
    apiVersion: ALERT_API,
    kind: 'PromotionAlert',
    metadata: { name: 'hooks', namespace: ns },
    spec: { address: receiver.url, secretRef: { name: 'hooks' }, timeout: '1s' },
  });
  const live = () => replicas.filter((r) => !r.dead);
  return { fleet, alice, receiver, ns, replicas, launch, live };
}

type World = Awaited<ReturnType<typeof setUp>>;

/** The replica leading now (waits for one). */
function leader(w: World): Promise<Replica> {
  return eventually(() => {
    const leading = w.live().filter((r) => r.gw.gateway.status().leader);
    expect(leading).toHaveLength(1);
    return leading[0]!;
  });
}

/** The events the Pipeline recorded since the alert began, by this alert's id: "env Type". */
function owed(w: World): Map<string, string> {
  const alert = w.fleet.management.get(ALERT_API, 'PromotionAlert', w.ns, 'hooks');
  const uid = String((alert?.metadata as { uid?: string } | undefined)?.uid);
  const meta = alert?.metadata as { creationTimestamp?: string } | undefined;
  const since = Date.parse(String(meta?.creationTimestamp));
  const events = new Map<string, string>();
  for (const fact of outboxFacts(pipelineOf(w.fleet, w.ns))) {
    if (fact.at >= since) events.set(eventId(uid, fact), `${fact.environment} ${fact.type}`);
  }
  return events;
}

function alertStatus(w: World): AlertStatus | undefined {
  return w.fleet.management.get(ALERT_API, 'PromotionAlert', w.ns, 'hooks')?.status as
    AlertStatus | undefined;
}

/** Sums `promotion_gateway_notifications_total` by result over every replica that ran. */
async function counted(w: World): Promise<Record<string, number>> {
  const sums: Record<string, number> = {};
  for (const r of w.replicas.filter((x) => x.closed !== true)) {
    for (const s of await scrapeMetric(r.gw.url, 'promotion_gateway_notifications_total')) {
      const result = s.labels.result ?? '';
      sums[result] = (sums[result] ?? 0) + s.value;
    }
  }
  return sums;
}

async function scenario(count: 1 | 2): Promise<void> {
  const w = await setUp(count);
  try {
    const gws = () => w.live().map((r) => r.gw);
    await announceRollout(w.fleet, gws(), w.ns, 'dev', VERSION);
    await eventually(() => recordOf(w.fleet, w.ns, 'staging')?.phase === 'Succeeded');
    await announceRollout(w.fleet, gws(), w.ns, 'staging', VERSION);
    const prod = () => pipelineOf(w.fleet, w.ns).status?.environments?.prod;
    await eventually(() => prod()?.waitingApproval?.revision === VERSION);
    const waitId = () => [...owed(w)].find(([, what]) => what === 'prod WaitingForApproval')?.[0];
    // The receiver is down: the wait is tried again and again, never delivered.
    await eventually(() => w.receiver.attempts.filter((a) => a.id === waitId()).length >= 3, {
      timeoutMs: 20_000,
    });
    const killed = await leader(w);
    if (count === 2) {
      await killed.proxy.cut();
      killed.dead = true;
    } else {
      await killed.gw.close();
      killed.dead = true;
      killed.closed = true;
      await w.launch();
    }
    const jws = await statement(w.alice, {
      pipeline: `${w.ns}/${APP_NAME}`,
      environment: 'prod',
      revision: VERSION,
    });
    const answer = await postStatement(w.live()[0]!.gw.url, w.ns, 'prod', jws);
    expect(answer.status).toBe(202);
    await eventually(() => recordOf(w.fleet, w.ns, 'prod')?.phase === 'Succeeded', {
      timeoutMs: 20_000,
    });
    // The wait is over in the status before anything was delivered; it is still owed.
    await eventually(() => prod()?.waitingApproval === undefined);
    w.receiver.up = true;
    await eventually(
      () => {
        const got = new Set(w.receiver.accepted.map((a) => a.id));
        expect([...owed(w).keys()].filter((id) => !got.has(id))).toEqual([]);
        expect(alertStatus(w)?.backlog).toBe(0);
      },
      { timeoutMs: 30_000 },
    );
    await checkDeliveries(w);
  } finally {
    await Promise.all(w.replicas.map((r) => r.gw.close().catch(() => undefined)));
    await w.receiver.close();
    await w.fleet.close();
  }
}

async function checkDeliveries(w: World): Promise<void> {
  const events = owed(w);
  // Every attempt of an event carried the same body: only the timestamp header moves.
  const bodies = new Map<string, Set<string>>();
  for (const a of w.receiver.attempts) {
    bodies.set(a.id, (bodies.get(a.id) ?? new Set()).add(a.body));
  }
  for (const [id, seen] of bodies) expect(seen.size, events.get(id)).toBe(1);
  // In order in prod's stream: the wait, its approval, then the promotion.
  const prodOrder = w.receiver.accepted
    .map((a) => events.get(a.id))
    .filter((what) => what?.startsWith('prod ') === true);
  const firstOf = (what: string) => prodOrder.indexOf(`prod ${what}`);
  if (process.env.DEBUG_OWED !== undefined) console.log('OWED', [...events.values()], prodOrder);
  expect(firstOf('WaitingForApproval')).toBe(0);
  expect(firstOf('AuthorizationRecorded')).toBeGreaterThan(firstOf('WaitingForApproval'));
  expect(firstOf('PromotionSucceeded')).toBeGreaterThan(firstOf('AuthorizationRecorded'));
  // delivered + superseded + dropped = owed, in the status and in the metrics alike.
  const counters = alertStatus(w)?.counters ?? {};
  const done = (counters.delivered ?? 0) + (counters.superseded ?? 0) + (counters.dropped ?? 0);
  expect(done).toBe(events.size);
  const metrics = await counted(w);
  expect({
    delivered: metrics.Delivered ?? 0,
    superseded: metrics.Superseded ?? 0,
    dropped: metrics.Dropped ?? 0,
  }).toEqual({
    delivered: counters.delivered ?? 0,
    superseded: counters.superseded ?? 0,
    dropped: counters.dropped ?? 0,
  });
}

describe('events owed while the receiver is down', () => {
  it('one replica, restarted: the wait, its approval and the promotion arrive, each once owed', async () => {
    await scenario(1);
  }, 120_000);

  it('two replicas, the leader killed: the same', async () => {
    await scenario(2);
  }, 120_000);
});
