/**
 * Nothing a stranger sends reaches Kubernetes: through real HTTP against kube-sim, requests
 * without valid credentials on every route cost no request to any cluster, the management
 * cluster included, even under API latency; the legacy webhook's keys are read ahead, so a
 * failing Secret read answers exactly like a bad signature; and signed legacy calls coalesce
 * like events.
 */
import { burstReadBound, timedBurst } from '../support/burst.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signBody } from '../../src/auth/hmac.js';
import {
  APP_NAME,
  ENVIRONMENTS,
  HR_RESOURCE,
  createApp,
  eventually,
  hintsDrained,
  launchGateway,
  postSigned,
  startTestFleet,
  waitSteady,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';

const PIPELINE_RESOURCE = 'pipelines.pipelines.weave.works';
const LEGACY_KEY = Buffer.from('legacy-hardening-key');
const UNAUTHENTICATED = { code: 'Unauthenticated', message: 'Authentication failed.' };
let fleet: TestFleet;
let gw: RunningGateway;

beforeAll(async () => {
  fleet = await startTestFleet();
  gw = await launchGateway(fleet, {
    config: { approvals: { legacyEndpoint: true }, rateLimit: { max: 100_000 } },
  });
  createApp(fleet, 'hardened', { legacyKey: LEGACY_KEY });
  await waitSteady(fleet, [gw], 'hardened');
});
afterAll(async () => {
  await gw.close();
  await fleet.close();
});

/**
 * Requests to every cluster, management included, of any kind, less the gateway's own
 * background traffic, which runs on its own clock whatever anyone sends: the leader's Lease
 * renewals, the Pipeline watch re-establishing itself, and the listings of PromotionAlerts and
 * PromotionTrains.
 */
function allRequests(): number {
  const management = fleet.management.requests;
  const background =
    management.count({ resource: 'leases.coordination.k8s.io' }) +
    management.count({ resource: 'promotionalerts.notifications.promotion-gateway.dev' }) +
    management.count({ resource: 'promotiontrains.pipelines.promotion-gateway.dev' }) +
    management.count({ resource: PIPELINE_RESOURCE, verb: 'watch' }) +
    management.count({ resource: PIPELINE_RESOURCE, verb: 'list' });
  const total = ['management', ...ENVIRONMENTS].reduce(
    (sum, name) => sum + fleet.env(name).requests.snapshot().total,
    0,
  );
  return total - background;
}

function strangers(ns: string): Promise<Response>[] {
  const body = Buffer.from('{"involvedObject":{"kind":"HelmRelease","name":"x","namespace":"y"}}');
  const legacy = `/promotion/${ns}/${APP_NAME}/prod`;
  return [
    ...Array.from({ length: 50 }, (_, i) =>
      postSigned(gw.url, legacy, body, i % 2 === 0 ? undefined : Buffer.from('wrong')),
    ),
    postSigned(gw.url, '/v1/events/dev', body, Buffer.from('wrong')),
    fetch(`${gw.url}/approval/${ns}/${APP_NAME}/prod/6.6.0`, {
      method: 'POST',
      headers: { 'x-signature': signBody(Buffer.alloc(0), Buffer.from('not-the-key')) },
    }),
    fetch(`${gw.url}/v1/pipelines/${ns}/${APP_NAME}/environments/prod/approvals`, {
      method: 'POST',
      headers: { 'content-type': 'application/jose' },
      body: 'eyJhbGciOiJub25lIn0.e30.',
    }),
    fetch(`${gw.url}/v1/pipelines/${ns}/${APP_NAME}/environments/prod/promotions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer not.a.token' },
      body: '{"revision":"6.6.0"}',
    }),
    fetch(`${gw.url}/v1/pipelines/${ns}/${APP_NAME}`),
  ];
}

describe('unauthenticated requests', () => {
  it('cause no Kubernetes request of any kind, under API latency too', async () => {
    await gw.gateway.idle();
    await fleet.management.faults.set({ latency: { fixedMs: 200 } });
    try {
      const before = allRequests();
      const answers = await Promise.all(strangers('hardened'));
      for (const res of answers) {
        expect(res.status).toBe(401);
        expect(await res.json()).toEqual(UNAUTHENTICATED);
      }
      await gw.gateway.idle();
      expect(allRequests()).toBe(before);
    } finally {
      await fleet.management.faults.clear();
    }
  });

  it('answer a failed key read exactly like a bad signature', async () => {
    await fleet.management.faults.set({ errors: [{ rate: 1, code: 500, resources: ['secrets'] }] });
    try {
      createApp(fleet, 'broken-key', { legacyKey: LEGACY_KEY });
      await eventually(() => gw.gateway.status().pipelinesLoaded >= 2);
      const body = Buffer.from('{}');
      const path = `/promotion/broken-key/${APP_NAME}/prod`;
      const signed = await postSigned(gw.url, path, body, LEGACY_KEY);
      const unsigned = await postSigned(gw.url, path, body, undefined);
      expect([signed.status, await signed.json()]).toEqual([401, UNAUTHENTICATED]);
      expect([unsigned.status, await unsigned.json()]).toEqual([401, UNAUTHENTICATED]);
    } finally {
      await fleet.management.faults.clear();
    }
    // Read again at the next resync: the key is known, and the same call is accepted.
    await gw.gateway.resync();
    const again = await postSigned(
      gw.url,
      `/promotion/broken-key/${APP_NAME}/prod`,
      Buffer.from('{}'),
      LEGACY_KEY,
    );
    expect(again.status).toBe(202);
  });
});

describe('signed legacy calls', () => {
  it('coalesce like events: 100 calls cost at most two reads of each target (once more per second they span)', async () => {
    await hintsDrained(gw);
    const reads = () =>
      ENVIRONMENTS.map((env) =>
        fleet
          .env(env)
          .requests.count({ verb: 'get', resource: HR_RESOURCE, namespace: 'hardened' }),
      );
    const before = reads();
    const body = Buffer.from('{}');
    const { result: answers, spanMs } = await timedBurst(async () => {
      const sent = await Promise.all(
        Array.from({ length: 100 }, () =>
          postSigned(gw.url, `/promotion/hardened/${APP_NAME}/prod`, body, LEGACY_KEY, {
            'X-Signature': signBody(body, LEGACY_KEY),
          }),
        ),
      );
      await Promise.all(sent.map((r) => r.text()));
      return sent;
    });
    expect(answers.every((r) => r.status === 202)).toBe(true);
    await hintsDrained(gw);
    const spent = reads().map((n, i) => n - (before[i] ?? 0));
    for (const n of spent) {
      expect(n).toBeGreaterThanOrEqual(1);
      // Two when the calls arrive within one spacing interval, as they do on an idle machine.
      expect(n).toBeLessThanOrEqual(burstReadBound(spanMs));
    }
  });
});
