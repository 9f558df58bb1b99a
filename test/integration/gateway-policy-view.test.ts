/**
 * Seeing the gates through the real gateway (one replica, then two) on kube-sim: a Pipeline
 * whose staging waits on an HTTP check (answering red) and whose prod soaks an hour on staging
 * inside a deny window, then is halted through one replica. `GET /v1/pipelines/{ns}/{name}` of
 * every replica shows, per environment, the check's result, the soak's time left, the closed
 * window's next opening and the halt (who, why, until when), and nothing of the check's URL;
 * a Pipeline without these fields answers without `policy`, as before.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PolicyView } from '../../src/evaluate/policy-view.js';
import { startIssuer, type TestIssuer } from '../support/authorizations.js';
import {
  APP_NAME,
  createApp,
  eventually,
  launchGateway,
  pipelineOf,
  startTestFleet,
  waitSteady,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';
import { announceRollout, apiViewer, type ApiViewer } from '../support/policy-harness.js';

const HOUR = 3_600_000;

let fleet: TestFleet;
let viewer: ApiViewer;
let sso: TestIssuer;
let service: Server;
let serviceUrl: string;

beforeAll(async () => {
  viewer = await apiViewer();
  sso = await startIssuer('https://sso.example.com');
  fleet = await startTestFleet();
  service = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ status: 'red' }));
  });
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
  serviceUrl = `http://127.0.0.1:${String((service.address() as AddressInfo).port)}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) =>
    service.close(() => {
      resolve();
    }),
  );
  await fleet.close();
  await sso.close();
});

/** `ms` as an RFC 5545 local date-time in UTC: `20250330T023000`. */
function stamp(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}Z$/, '');
}

/**
 * ns/podinfo: staging requires an HTTP check (its URL carrying a secret query), prod soaks 1h
 * on staging and has a daily one-hour deny window that began at `freezeStart`.
 */
function appWithGates(ns: string, freezeStart: number): void {
  createApp(fleet, ns);
  const pipeline = pipelineOf(fleet, ns);
  const spec = structuredClone(pipeline.spec);
  const [, staging, prod] = spec.environments;
  if (staging === undefined || prod === undefined) throw new Error('no staging or prod');
  const strategy = { notification: {} };
  staging.promotion = {
    strategy,
    checks: [
      {
        name: 'health',
        http: {
          url: `${serviceUrl}/checks/${ns}/{{revision}}?key=s3cret-q`,
          expect: { json: { path: 'status', equals: 'green' } },
          cacheSeconds: 1,
        },
      },
    ],
  };
  prod.promotion = {
    strategy,
    soak: { duration: '1h' },
    windows: [
      {
        name: 'freeze',
        type: 'Deny',
        rrule: `DTSTART:${stamp(freezeStart)}\nRRULE:FREQ=DAILY`,
        timeZone: 'UTC',
        duration: '1h',
      },
    ],
  };
  fleet.management.apply({ ...pipeline, metadata: { name: APP_NAME, namespace: ns }, spec });
}

interface Body {
  decisions: { environment: string; reason: string }[];
  policy?: Record<string, PolicyView>;
}

async function read(g: RunningGateway, ns: string): Promise<{ text: string; body: Body }> {
  const bearer = await viewer.token({ sub: 'viewer', pipelines: [`${ns}/*`] });
  const res = await fetch(`${g.url}/v1/pipelines/${ns}/${APP_NAME}`, {
    headers: { Authorization: `Bearer ${bearer}` },
  });
  expect(res.status).toBe(200);
  const text = await res.text();
  return { text, body: JSON.parse(text) as Body };
}

describe.each([1, 2])('seeing the gates with %i gateway replica(s)', (replicas) => {
  let gateways: RunningGateway[] = [];

  beforeAll(async () => {
    gateways = await Promise.all(
      Array.from({ length: replicas }, (_, i) =>
        launchGateway(fleet, {
          instanceId: `policy-view-${String(replicas)}-${String(i)}`,
          config: {
            jwt: viewer.jwt,
            checks: { http: { allowedUrlPrefixes: [`${serviceUrl}/checks/`] } },
            approvals: {
              approvers: [{ name: 'bob', oidcSubjects: [`${sso.issuer}#bob-sub`], groups: [] }],
              oidc: { issuer: sso.issuer, audience: 'promotion-gateway', jwksUrl: sso.jwksUrl },
            },
          },
        }),
      ),
    );
  });
  afterAll(async () => {
    await Promise.all(gateways.map((g) => g.close()));
  });

  it('a Pipeline without policy fields answers with no policy', async () => {
    const ns = `pv-plain-${String(replicas)}`;
    createApp(fleet, ns);
    await waitSteady(fleet, gateways, ns);
    for (const g of gateways) {
      const { body } = await read(g, ns);
      expect(Object.keys(body)).toEqual([
        'namespace',
        'name',
        'targets',
        'decisions',
        'evaluatedAt',
      ]);
    }
  });

  it('shows the check result, the soak left, the next opening and the halt', async () => {
    const ns = `pv-gates-${String(replicas)}`;
    const freezeStart = Math.floor(Date.now() / 1000) * 1000 - 60_000;
    appWithGates(ns, freezeStart);
    await waitSteady(fleet, gateways, ns);
    await announceRollout(fleet, gateways, ns, 'dev', '6.6.0');

    // staging waits on its check, which every replica has read and shows as Failed.
    for (const g of gateways) {
      const staging = await eventually(
        async () => {
          const { text, body } = await read(g, ns);
          const view = body.policy?.staging;
          if (view?.checks?.[0]?.result !== 'Failed') throw new Error(text);
          expect(body.decisions[1]?.reason).toBe('CheckFailed');
          expect(text).not.toContain('s3cret');
          expect(text).not.toContain(serviceUrl);
          return view;
        },
        { timeoutMs: 15_000 },
      );
      expect(staging).toMatchObject({ revision: '6.6.0', holding: ['checks'] });
      expect(staging.checks).toEqual([
        {
          name: 'health',
          kind: 'http',
          result: 'Failed',
          detail: 'failed: answered with "status" = "red", expected "green"',
          expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) as string,
        },
      ]);
    }

    const halted = await fetch(`${gateways[0]?.url ?? ''}/v1/pipelines/${ns}/${APP_NAME}/halts`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await sso.token({ sub: 'bob-sub' })}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        environment: 'prod',
        reason: 'incident 42',
        expiresAt: new Date(Date.now() + 2 * HOUR).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      }),
    });
    expect(halted.status).toBe(201);
    const { halt } = (await halted.json()) as { halt: { id: string; expiresAt: string } };

    for (const g of gateways) {
      const prod = await eventually(
        async () => {
          const { text, body } = await read(g, ns);
          const view = body.policy?.prod;
          if (view?.halts?.[0]?.id !== halt.id) throw new Error(text);
          expect(Object.keys(body.policy ?? {})).toEqual(['staging', 'prod']);
          return view;
        },
        { timeoutMs: 15_000 },
      );
      // prod would take staging's 6.5.0 (it runs it already): every gate there would hold it.
      expect(prod.revision).toBe('6.5.0');
      expect(prod.holding).toEqual(['halts', 'window', 'soak']);
      expect(prod.halts).toEqual([
        {
          id: halt.id,
          environment: 'prod',
          principal: 'bob',
          kind: 'human',
          reason: 'incident 42',
          since: expect.any(String) as string,
          until: halt.expiresAt,
        },
      ]);
      expect(prod.window).toEqual({
        open: false,
        reason: 'InDenyWindow',
        windows: [{ name: 'freeze', type: 'Deny', level: 'environment' }],
        nextOpening: new Date(freezeStart + HOUR).toISOString().replace(/\.\d{3}Z$/, 'Z'),
        nextOpeningLocal: expect.stringContaining('UTC') as string,
      });
      const soak = prod.soak;
      expect(soak).toMatchObject({ duration: '1h', upstream: 'staging' });
      const since = Date.parse(soak?.healthySince ?? '');
      expect(Date.parse(soak?.endsAt ?? '')).toBe(since + HOUR);
      expect(soak?.left).toMatch(/^(5\dm(\d{1,2}s)?|1h)$/);
    }
  });
});
