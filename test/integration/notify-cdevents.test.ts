/**
 * A PromotionAlert of type cdevents through the real gateway (one replica, then two) on
 * kube-sim, its receiver a real HTTP server: staging's first promotion fails once (the
 * management API refuses the Promote Event), then succeeds; Flux's upgrade fails and staging is
 * rolled back automatically; 6.7.0 promotes staging again and waits for prod's approval; a
 * person puts 6.5.0 back there by hand, which the resync finds without a Flux event
 * (EventsMissing) and which drifts staging. Every request the receiver got is a CDEvent valid against the
 * specification's schema of its type, in CloudEvents binary mode, and every kind is there.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollOutRelease } from 'kube-sim/flux';
import type { KubeObject } from '../../src/kube/ports.js';
import { CDEVENT_KINDS, cdEventType } from '../../src/notify/formats/cdevents-vocabulary.js';
import type { CDEvent } from '../../src/notify/formats/cdevents.js';
import { validateCDEvent } from '../support/cdevents-schemas.js';
import {
  APP_NAME,
  createApp,
  eventually,
  launchGateway,
  pipelineOf,
  postSigned,
  rollOut,
  startTestFleet,
  upgradeBody,
  waitSteady,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';
import { recordAt, verifiedAt } from '../support/rollback-harness.js';

const ALERT_API = 'notifications.promotion-gateway.dev/v1alpha1';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let fleet: TestFleet;
let server: Server;
let base = '';
const received: Received[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ path: req.url ?? '', headers: req.headers, body });
      res.writeHead(202).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  base = `http://127.0.0.1:${String(address.port)}`;
  fleet = await startTestFleet();
});
afterAll(async () => {
  await fleet.close();
  await new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
});

/** The CDEvents the receiver got at `/<ns>`, parsed. */
function eventsAt(ns: string): { headers: IncomingHttpHeaders; event: CDEvent }[] {
  return received
    .filter((r) => r.path === `/${ns}`)
    .map((r) => ({ headers: r.headers, event: JSON.parse(r.body) as CDEvent }));
}

describe.each([1, 2])('a cdevents PromotionAlert with %i gateway replica(s)', (replicas) => {
  let gateways: RunningGateway[] = [];
  const ns = `notify-cdevents-${String(replicas)}`;

  /** Every replica hears Flux's event about `object`, as it is now. */
  const announce = async (env: 'dev' | 'staging', object: KubeObject) => {
    for (const g of gateways) {
      const res = await postSigned(g.url, `/v1/events/${env}`, upgradeBody(object), fleet.key(env));
      expect(res.status).toBe(202);
    }
  };
  /** Waits until the receiver got an event of `kind` about `revision`. */
  const delivered = (kind: (typeof CDEVENT_KINDS)[number], revision: string) =>
    eventually(
      () => {
        const found = eventsAt(ns).find(
          (e) =>
            e.event.context.type === cdEventType(kind) && e.event.customData.revision === revision,
        );
        if (found === undefined) throw new Error(`no ${kind} of ${revision} yet`);
        return found.event;
      },
      { timeoutMs: 20_000 },
    );

  /** Waits until staging's stored target record says it runs `revision` ready, and all is idle. */
  const stagingRuns = async (revision: string) => {
    await eventually(() => {
      const target = pipelineOf(fleet, ns).status?.environments?.staging?.targets?.[0];
      expect(target).toMatchObject({ revision, ready: true });
    });
    for (const g of gateways) await g.gateway.idle();
  };

  beforeAll(async () => {
    fleet.management.ensureNamespace(ns);
    fleet.management.apply({
      apiVersion: ALERT_API,
      kind: 'PromotionAlert',
      metadata: { name: 'cdevents', namespace: ns },
      spec: { type: 'cdevents', address: `${base}/${ns}`, timeout: '1s' },
    });
    gateways = await Promise.all(
      Array.from({ length: replicas }, (_, i) =>
        launchGateway(fleet, {
          instanceId: `cdevents-${String(replicas)}-${String(i)}`,
          config: {
            notifications: {
              intervalMs: 100,
              retryBaseMs: 50,
              retryMaxMs: 200,
              allowedUrlPrefixes: [`${base}/`],
            },
            promotion: { retry: { maxAttempts: 50, backoffBaseMs: 200, backoffMaxMs: 500 } },
          },
        }),
      ),
    );
  });
  afterAll(async () => {
    await Promise.all(gateways.map((g) => g.close()));
  });

  it('delivers every mapped kind as a valid CDEvent in CloudEvents binary mode', async () => {
    createApp(fleet, ns, {
      stagingPromotion: { rollback: { automatic: { window: '15m' } } },
      prodPromotion: { manual: true },
    });
    await waitSteady(fleet, gateways, ns);
    await verifiedAt(fleet, ns, 'staging', '6.5.0');

    // The notification strategy's Promote Event is refused once: the attempt fails, is retried.
    await fleet.management.faults.set({
      errors: [{ rate: 1, code: 500, verbs: ['create'], resources: ['events'] }],
    });
    try {
      await announce('dev', rollOut(fleet.dev, ns, '6.6.0'));
      const failed = await delivered('pipelinerun.finished', '6.6.0');
      expect(failed.subject.content).toMatchObject({ outcome: 'failure' });
    } finally {
      await fleet.management.faults.clear('errors');
    }
    await recordAt(fleet, ns, 'staging', '6.6.0');
    const deployed = await delivered('service.deployed', '6.6.0');
    expect(deployed.subject.content).toEqual({
      environment: { id: 'staging', source: `/promotion-gateway/pipelines/${ns}/${APP_NAME}` },
      artifactId: `pkg:generic/${APP_NAME}@6.6.0`,
    });

    // Flux's upgrade fails: staging is rolled back to 6.5.0, which Flux applies.
    const failing = rollOutRelease(fleet.staging, ns, APP_NAME, '6.6.0', { fail: true });
    await announce('staging', failing as unknown as KubeObject);
    await recordAt(fleet, ns, 'staging', '6.5.0');
    await delivered('service.rolledback', '6.5.0');
    await announce('staging', rollOut(fleet.staging, ns, '6.5.0'));
    await stagingRuns('6.5.0');

    // A newer revision promotes staging again (an upgrade from 6.5.0) and waits for prod's approval.
    await announce('dev', rollOut(fleet.dev, ns, '6.7.0'));
    await recordAt(fleet, ns, 'staging', '6.7.0');
    const upgraded = await delivered('service.upgraded', '6.7.0');
    expect(upgraded.customData.previousRevision).toBe('6.5.0');
    await announce('staging', rollOut(fleet.staging, ns, '6.7.0'));
    const queued = await delivered('pipelinerun.queued', '6.7.0');
    expect(queued.subject.id).toBe('prod/6.7.0');
    await stagingRuns('6.7.0');

    // 6.5.0 by hand, no Flux event: the resync finds it (EventsMissing) and staging drifts.
    rollOut(fleet.staging, ns, '6.5.0');
    await gateways[0]?.gateway.resync();
    await delivered('incident.detected', '');
    const modified = await delivered('environment.modified', '6.7.0');
    expect(modified.subject).toMatchObject({ id: 'staging', content: { name: 'staging' } });

    const all = eventsAt(ns);
    expect(new Set(all.map((e) => e.event.context.type))).toEqual(
      new Set(CDEVENT_KINDS.map(cdEventType)),
    );
    for (const { headers, event } of all) {
      expect(validateCDEvent(event), JSON.stringify(event)).toEqual([]);
      expect(headers).toMatchObject({
        'content-type': 'application/json',
        'ce-specversion': '1.0',
        'ce-id': event.context.id,
        'ce-source': event.context.source,
        'ce-type': event.context.type,
        'ce-subject': event.subject.id,
        'ce-time': event.context.timestamp,
      });
    }
  }, 120_000);
});
