/**
 * Automatic rollback through the real gateway (one replica, then two) on kube-sim: staging is
 * promoted to 6.6.0, Flux's upgrade fails there within the window, and the gateway rolls staging
 * back to 6.5.0 once, marks 6.6.0 failed verification, and holds it for staging and prod: prod
 * never takes 6.6.0, even once staging runs it healthy. And with an HTTP check on loopback:
 * staging runs 6.6.0 healthy, the check turns red within the window, staging is rolled back.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollOutRelease } from 'kube-sim/flux';
import type { KubeObject } from '../../src/kube/ports.js';
import { apiViewer, type ApiViewer } from '../support/policy-harness.js';
import {
  APP_NAME,
  createApp,
  eventually,
  launchGateway,
  postSigned,
  rollOut,
  startTestFleet,
  upgradeBody,
  waitSteady,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';
import { holdsOf, promotedRevisions, recordAt, verifiedAt } from '../support/rollback-harness.js';

let fleet: TestFleet;
let viewer: ApiViewer;
let service: Server;
let serviceUrl: string;
/** What the check service answers for a path (`green` unless set). */
const colours = new Map<string, string>();

beforeAll(async () => {
  fleet = await startTestFleet();
  viewer = await apiViewer();
  service = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ status: colours.get(req.url ?? '') ?? 'green' }));
  });
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
  serviceUrl = `http://127.0.0.1:${String((service.address() as AddressInfo).port)}`;
});
afterAll(async () => {
  await new Promise((resolve) => service.close(resolve));
  await fleet.close();
});

describe.each([1, 2])('automatic rollback with %i gateway replica(s)', (replicas) => {
  let gateways: RunningGateway[] = [];
  const idle = async () => {
    for (const g of gateways) await g.gateway.idle();
  };
  /** Every replica hears Flux's event about `object`, as it is now. */
  const announce = async (env: 'dev' | 'staging' | 'prod', object: KubeObject) => {
    for (const g of gateways) {
      const res = await postSigned(g.url, `/v1/events/${env}`, upgradeBody(object), fleet.key(env));
      expect(res.status).toBe(202);
    }
  };

  beforeAll(async () => {
    gateways = await Promise.all(
      Array.from({ length: replicas }, (_, i) =>
        launchGateway(fleet, {
          instanceId: `auto-rollback-${replicas}-${i}`,
          config: {
            jwt: viewer.jwt,
            checks: { http: { allowedUrlPrefixes: [`${serviceUrl}/checks/`] } },
          },
        }),
      ),
    );
  });
  afterAll(async () => {
    await Promise.all(gateways.map((g) => g.close()));
  });

  it('rolls staging back once when 6.6.0 fails there, and neither staging nor prod takes 6.6.0', async () => {
    const ns = `auto-rb-${replicas}`;
    createApp(fleet, ns, { stagingPromotion: { rollback: { automatic: { window: '15m' } } } });
    await waitSteady(fleet, gateways, ns);
    await verifiedAt(fleet, ns, 'staging', '6.5.0');
    await announce('dev', rollOut(fleet.dev, ns, '6.6.0'));
    await recordAt(fleet, ns, 'staging', '6.6.0');
    // Flux's upgrade of staging fails: 6.5.0 stays deployed, Ready=False, Stalled.
    const failed = rollOutRelease(fleet.staging, ns, APP_NAME, '6.6.0', { fail: true });
    await announce('staging', failed as unknown as KubeObject);
    const record = await recordAt(fleet, ns, 'staging', '6.5.0');
    expect(record.rollback).toMatchObject({
      from: '6.6.0',
      by: ['promotion-gateway'],
      automatic: true,
    });
    expect(holdsOf(fleet, ns, 'staging')).toEqual([
      expect.objectContaining({ revision: '6.6.0', reason: 'FailedVerification' }),
    ]);
    // Flux applies the rollback; then staging ends up running 6.6.0 healthy after all (a
    // person applies it by hand): staging keeps it, and prod still never takes it.
    await announce('staging', rollOut(fleet.staging, ns, '6.5.0'));
    await idle();
    await announce('staging', rollOut(fleet.staging, ns, '6.6.0'));
    for (const g of gateways) await g.gateway.resync();
    for (const g of gateways) {
      const decision = await eventually(async () => {
        const d = await viewer.decisionOf(g, ns, 'prod');
        if (d.reason !== 'FailedVerification') throw new Error(`prod decides ${JSON.stringify(d)}`);
        return d;
      });
      expect(decision).toMatchObject({ outcome: 'Waiting', revision: '6.6.0' });
    }
    await idle();
    expect(promotedRevisions(fleet, ns, 'staging')).toEqual(['6.6.0', '6.5.0']);
    expect(promotedRevisions(fleet, ns, 'prod')).toEqual([]);
  }, 90_000);

  it('rolls staging back when its check turns red for 6.6.0 within the window', async () => {
    const ns = `auto-rb-check-${replicas}`;
    const check = {
      name: 'health',
      http: {
        url: `${serviceUrl}/checks/${ns}/{{revision}}`,
        expect: { status: 200, json: { path: 'status', equals: 'green' } },
        cacheSeconds: 1,
      },
    };
    createApp(fleet, ns, {
      stagingPromotion: { checks: [check], rollback: { automatic: { window: '15m' } } },
    });
    await waitSteady(fleet, gateways, ns);
    await verifiedAt(fleet, ns, 'staging', '6.5.0');
    await announce('dev', rollOut(fleet.dev, ns, '6.6.0'));
    await recordAt(fleet, ns, 'staging', '6.6.0');
    await announce('staging', rollOut(fleet.staging, ns, '6.6.0'));
    await idle();
    colours.set(`/checks/${ns}/6.6.0`, 'red');
    const record = await recordAt(fleet, ns, 'staging', '6.5.0');
    expect(record.rollback).toMatchObject({ from: '6.6.0', automatic: true });
    expect(record.rollback?.reason).toContain('check health failed');
    expect(holdsOf(fleet, ns, 'staging')).toEqual([
      expect.objectContaining({ revision: '6.6.0', reason: 'FailedVerification' }),
    ]);
    await idle();
    expect(promotedRevisions(fleet, ns, 'staging')).toEqual(['6.6.0', '6.5.0']);
  }, 90_000);
});
