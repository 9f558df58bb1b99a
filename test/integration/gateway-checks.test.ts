/**
 * External checks through the real gateway (one replica, then two) on kube-sim, the simulated
 * GitHub and a check service on loopback: staging waits for a commit status of its chart
 * version's tag (CheckPending while CI runs, one promotion once it succeeds), holds on a failing
 * HTTP check (CheckFailed) until it turns green, and decides nothing on a check that cannot be
 * read (CheckUnknown), including one the operator's allow-list does not admit and ones it admits
 * by a name that resolves to loopback or to an API server of the fleet.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startForge, type ForgeHandle } from 'forge-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckSpec } from '../../src/pipeline/pipeline-resource.js';
import {
  APP_NAME,
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
import {
  announceRollout,
  apiViewer,
  pendingCondition as pendingIn,
  pendingWith as pendingWithIn,
  promotionsTo as promotionsIn,
  type ApiViewer,
} from '../support/policy-harness.js';

const STATUS_ROUTE = 'GET /repos/{owner}/{repo}/commits/{ref+}/status';

let fleet: TestFleet;
let viewer: ApiViewer;
let forge: ForgeHandle;
let forgeToken: string;
let service: Server;
let serviceUrl: string;
let closedUrl: string;
/** The check service and the management API server by a name (localhost), not an address. */
let namedServiceUrl: string;
let namedApiServerUrl: string;
/** What the check service answers, by path; and every path it was asked. */
const answers = new Map<string, { status: number; body: unknown }>();
const asked: string[] = [];

beforeAll(async () => {
  viewer = await apiViewer();
  [fleet, forge] = await Promise.all([startTestFleet(), startForge({ kind: 'github' })]);
  forgeToken = forge.addToken('gateway', ['statuses:read', 'checks:read']);
  service = createServer((req, res) => {
    const path = req.url ?? '';
    asked.push(path);
    const answer = answers.get(path) ?? { status: 404, body: {} };
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
  serviceUrl = `http://127.0.0.1:${String((service.address() as AddressInfo).port)}`;
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  closedUrl = `http://127.0.0.1:${String((closed.address() as AddressInfo).port)}`;
  namedServiceUrl = serviceUrl.replace('127.0.0.1', 'localhost');
  namedApiServerUrl = fleet.management.url.replace('127.0.0.1', 'localhost');
  await new Promise<void>((resolve) =>
    closed.close(() => {
      resolve();
    }),
  );
});
afterAll(async () => {
  await new Promise<void>((resolve) =>
    service.close(() => {
      resolve();
    }),
  );
  await forge.close();
  await fleet.close();
});

/** ns/podinfo whose staging environment requires `checks`, with the forge token's Secret. */
function appWithChecks(ns: string, checks: CheckSpec[]): void {
  createApp(fleet, ns);
  fleet.management.apply({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'forge-token', namespace: ns },
    type: 'Opaque',
    data: { token: Buffer.from(forgeToken).toString('base64') },
  });
  const pipeline = pipelineOf(fleet, ns);
  const spec = structuredClone(pipeline.spec);
  const staging = spec.environments.find((e) => e.name === 'staging');
  if (staging === undefined) throw new Error('no staging');
  staging.promotion = { strategy: { notification: {} }, checks };
  fleet.management.apply({ ...pipeline, metadata: { name: APP_NAME, namespace: ns }, spec });
}

const devRollsOut = (gws: readonly RunningGateway[], ns: string, version: string) =>
  announceRollout(fleet, gws, ns, 'dev', version);
const pendingCondition = (ns: string) => pendingIn(fleet, ns);
/** Waits until the status says staging waits with `reason`, and the message has `text`. */
const stagingWaits = (ns: string, reason: string, text: string) =>
  pendingWithIn(fleet, ns, reason, text);
const stagingPromotions = (ns: string) => promotionsIn(fleet, ns, 'staging');
const token = (claims: Record<string, unknown>) => viewer.token(claims);

describe.each([1, 2])('external checks with %i gateway replica(s)', (replicas) => {
  let gateways: RunningGateway[] = [];

  beforeAll(async () => {
    gateways = await Promise.all(
      Array.from({ length: replicas }, (_, i) =>
        launchGateway(fleet, {
          instanceId: `gw-${String(replicas)}-${String(i)}`,
          config: {
            jwt: viewer.jwt,
            checks: {
              http: {
                allowedUrlPrefixes: [
                  `${serviceUrl}/checks/`,
                  `${closedUrl}/`,
                  `${namedServiceUrl}/checks/`,
                  `${namedApiServerUrl}/checks/`,
                ],
              },
            },
            promotion: { pullRequest: { allowPlainHttp: true } },
          },
        }),
      ),
    );
  });
  afterAll(async () => {
    await Promise.all(gateways.map((g) => g.close()));
  });

  it('waits while CI is pending on the chart version’s tag, then promotes exactly once', async () => {
    const ns = `chk-ci-${String(replicas)}`;
    const repo = `acme/${ns}`;
    await forge.createRepo(repo, { 'Chart.yaml': 'version: 6.6.0\n' });
    await forge.createTag(repo, 'v6.6.0');
    appWithChecks(ns, [
      {
        name: 'ci',
        commitStatus: {
          contexts: ['ci/e2e'],
          ref: 'v{{revision}}',
          repository: {
            type: 'github',
            url: `${forge.url}/${repo}`,
            secretRef: { name: 'forge-token' },
          },
          cacheSeconds: 1,
        },
      },
    ]);
    await waitSteady(fleet, gateways, ns);
    const started = Date.now();
    const readsBefore = forge.requests.count({ route: STATUS_ROUTE });
    await devRollsOut(gateways, ns, '6.6.0');

    await stagingWaits(ns, 'CheckPending', 'ci pending: ci/e2e not reported yet at v6.6.0');
    await forge.setStatus(repo, 'v6.6.0', { context: 'ci/e2e', state: 'pending' });
    const waiting = await stagingWaits(ns, 'CheckPending', 'ci pending: ci/e2e pending at v6.6.0');
    expect(waiting.message).toBe(
      'staging: dev is healthy at 6.6.0 on 1 target; staging waits for its checks on 6.6.0: ci pending: ci/e2e pending at v6.6.0',
    );
    expect(recordOf(fleet, ns, 'staging')).toBeUndefined();
    for (const g of gateways) {
      const decision = g.gateway.view({ namespace: ns, name: APP_NAME })?.decisions[1];
      expect(decision).toMatchObject({
        outcome: 'Waiting',
        reason: 'CheckPending',
        revision: '6.6.0',
      });
    }

    await forge.setStatus(repo, 'v6.6.0', { context: 'ci/e2e', state: 'success' });
    const record = await eventually(
      () => {
        const r = recordOf(fleet, ns, 'staging');
        if (r?.revision !== '6.6.0' || r.phase !== 'Succeeded') throw new Error(JSON.stringify(r));
        return r;
      },
      { timeoutMs: 15_000 },
    );
    expect(record.attempt).toBe(1);
    for (const g of gateways) {
      await g.gateway.resync();
      await g.gateway.idle();
    }
    expect(stagingPromotions(ns)).toBe(1);
    // At most one read per replica per second (the cache time), plus the first ones.
    const seconds = (Date.now() - started) / 1000;
    const reads = forge.requests.count({ route: STATUS_ROUTE }) - readsBefore;
    expect(reads).toBeGreaterThanOrEqual(3);
    expect(reads).toBeLessThanOrEqual(replicas * (Math.ceil(seconds) + 3));
  });

  it('holds on a failing HTTP check (CheckFailed) until it answers as expected', async () => {
    const ns = `chk-http-${String(replicas)}`;
    const path = `/checks/${ns}/6.6.0`;
    answers.set(path, { status: 200, body: { status: 'red' } });
    appWithChecks(ns, [
      {
        name: 'health',
        http: {
          url: `${serviceUrl}/checks/${ns}/{{revision}}`,
          expect: { status: 200, json: { path: 'status', equals: 'green' } },
          cacheSeconds: 1,
        },
      },
    ]);
    await waitSteady(fleet, gateways, ns);
    await devRollsOut(gateways, ns, '6.6.0');
    const held = await stagingWaits(
      ns,
      'CheckFailed',
      'health failed: answered with "status" = "red", expected "green"',
    );
    expect(held.message).not.toContain(serviceUrl);
    expect(recordOf(fleet, ns, 'staging')).toBeUndefined();
    if (replicas === 1) {
      const [g] = gateways;
      const res = await fetch(`${g?.url ?? ''}/v1/pipelines/${ns}/${APP_NAME}`, {
        headers: {
          authorization: `Bearer ${await token({ sub: 'viewer', pipelines: [`${ns}/*`] })}`,
        },
      });
      const view = (await res.json()) as {
        decisions: { reason: string; message: string; retryAt?: number }[];
      };
      expect(view.decisions[1]).toMatchObject({
        reason: 'CheckFailed',
        message: expect.stringContaining('health failed') as string,
        retryAt: expect.any(Number) as number,
      });
    }
    answers.set(path, { status: 200, body: { status: 'green' } });
    await eventually(() => recordOf(fleet, ns, 'staging')?.phase === 'Succeeded', {
      timeoutMs: 15_000,
    });
    for (const g of gateways) await g.gateway.idle();
    expect(stagingPromotions(ns)).toBe(1);
  });

  it('decides nothing on a check it cannot read, nor on one the allow-list refuses', async () => {
    const ns = `chk-unknown-${String(replicas)}`;
    const before = asked.length;
    appWithChecks(ns, [
      { name: 'down', http: { url: `${closedUrl}/health`, timeoutSeconds: 1 } },
      { name: 'internal', http: { url: `${serviceUrl}/admin/{{revision}}` } },
      { name: 'named', http: { url: `${namedServiceUrl}/checks/${ns}/{{revision}}?key=s3cret` } },
      { name: 'kube', http: { url: `${namedApiServerUrl}/checks/{{revision}}` } },
    ]);
    await waitSteady(fleet, gateways, ns);
    await devRollsOut(gateways, ns, '6.6.0');
    await stagingWaits(ns, 'CheckUnknown', 'down unknown: could not be reached');
    // The checks are asked at once and each result lands when it comes: wait for the last two.
    await stagingWaits(ns, 'CheckUnknown', 'named unknown');
    const c = await stagingWaits(ns, 'CheckUnknown', 'kube unknown');
    expect(c.message).toContain('down unknown: could not be reached');
    expect(c.message).toContain(
      `internal unknown: ${serviceUrl}/admin/6.6.0 is not admitted by the gateway's checks.http.allowedUrlPrefixes`,
    );
    const hint =
      'which only an entry of checks.http.allowedUrlPrefixes naming that IP address opens';
    expect(c.message).toContain(
      `named unknown: its url ${namedServiceUrl}/… resolves to a loopback address, ${hint}`,
    );
    expect(c.message).toContain(
      // The condition's message is clipped at its end: the hint is in the check's result.
      `kube unknown: its url ${namedApiServerUrl}/… resolves to the API server of a cluster the gateway reaches`,
    );
    expect(c.message).not.toContain('s3cret');
    // Still waiting after more passes; the refused URLs were never called.
    for (const g of gateways) {
      await g.gateway.resync();
      await g.gateway.idle();
    }
    expect(pendingCondition(ns)?.reason).toBe('CheckUnknown');
    expect(recordOf(fleet, ns, 'staging')).toBeUndefined();
    const refused = (p: string) => p.startsWith('/admin') || p.startsWith(`/checks/${ns}/`);
    expect(asked.slice(before).filter(refused)).toEqual([]);
  });
});
