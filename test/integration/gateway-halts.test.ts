/**
 * Stop-the-line halts through the real gateway (one replica, then two) on kube-sim, with SSO
 * and CI tokens from local OIDC issuers: a halt of prod through one replica holds prod
 * (Waiting Halted, in the status and in every replica's API) while staging still promotes;
 * the lift through the other replica lets prod be promoted exactly once; a halt that expires
 * stops holding by itself; callers who may not halt get 401/403 and nothing is recorded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HaltRecord } from '../../src/pipeline/pipeline-resource.js';
import { startIssuer, type TestIssuer } from '../support/authorizations.js';
import {
  announceRollout,
  apiViewer,
  pendingWith as pendingIn,
  promotionsTo as promotionsIn,
  type ApiViewer,
} from '../support/policy-harness.js';
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
import type { ConfigInput } from '../../src/config/input.js';

const AUDIENCE = 'promotion-gateway';
const CI_CLAIMS = { repository: 'acme/podinfo', ref: 'refs/heads/main', sub: 'repo:acme/podinfo' };

let fleet: TestFleet;
let sso: TestIssuer;
let github: TestIssuer;
let viewer: ApiViewer;

beforeAll(async () => {
  [sso, github] = await Promise.all([
    startIssuer('https://sso.example.com'),
    startIssuer('https://token.actions.githubusercontent.com'),
  ]);
  fleet = await startTestFleet();
  viewer = await apiViewer();
});
afterAll(async () => {
  await fleet.close();
  await Promise.all([sso.close(), github.close()]);
});

function config(): ConfigInput {
  const issuer = (i: TestIssuer) => ({ issuer: i.issuer, audience: AUDIENCE, jwksUrl: i.jwksUrl });
  return {
    jwt: viewer.jwt,
    approvals: {
      approvers: [{ name: 'bob', oidcSubjects: [`${sso.issuer}#bob-sub`], groups: [] }],
      oidc: issuer(sso),
    },
    ci: {
      issuers: [{ name: 'github', ...issuer(github) }],
      policies: [
        {
          name: 'e2e',
          issuer: 'github',
          claims: { repository: 'acme/podinfo', ref: 'refs/heads/main' },
          pipelines: ['*'],
          environments: ['prod'],
        },
      ],
    },
  };
}

function halts(g: RunningGateway, ns: string, token: string | undefined, body: unknown) {
  return fetch(`${g.url}/v1/pipelines/${ns}/${APP_NAME}/halts`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify(body),
  });
}

function lift(g: RunningGateway, ns: string, token: string, id: string) {
  return fetch(`${g.url}/v1/pipelines/${ns}/${APP_NAME}/halts/${id}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${token}` },
  });
}

const bob = () => sso.token({ sub: 'bob-sub' });
const rollsOut = (gws: readonly RunningGateway[], ns: string, env: 'dev' | 'staging', v: string) =>
  announceRollout(fleet, gws, ns, env, v);
const pendingWith = (ns: string, reason: string, text: string) =>
  pendingIn(fleet, ns, reason, text);
const promotionsTo = (ns: string, env: string) => promotionsIn(fleet, ns, env);
const decisionOf = (g: RunningGateway, ns: string, env: string) => viewer.decisionOf(g, ns, env);

async function promoted(ns: string, env: string, version: string): Promise<number> {
  const record = await eventually(
    () => {
      const r = recordOf(fleet, ns, env);
      if (r?.revision !== version || r.phase !== 'Succeeded')
        throw new Error(`${env}'s record is ${JSON.stringify(r)}`);
      return r;
    },
    { timeoutMs: 20_000 },
  );
  expect(record.attempt).toBe(1);
  return Date.parse(record.lastAttemptedTime);
}

/** dev and staging at 6.6.0 (staging promoted through the gateways), so prod would promote. */
async function prodWouldPromote(gws: readonly RunningGateway[], ns: string): Promise<void> {
  await rollsOut(gws, ns, 'dev', '6.6.0');
  await promoted(ns, 'staging', '6.6.0');
  await rollsOut(gws, ns, 'staging', '6.6.0');
}

describe.each([1, 2])('stop-the-line halts with %i gateway replica(s)', (replicas) => {
  let gateways: RunningGateway[] = [];
  const replica = (i: number): RunningGateway => {
    const g = gateways[i];
    if (g === undefined) throw new Error(`no replica ${String(i)}`);
    return g;
  };
  const first = () => replica(0);
  const last = () => replica(gateways.length - 1);

  beforeAll(async () => {
    gateways = await Promise.all(
      Array.from({ length: replicas }, (_, i) =>
        launchGateway(fleet, { instanceId: `halts-${replicas}-${i}`, config: config() }),
      ),
    );
  });
  afterAll(async () => {
    await Promise.all(gateways.map((g) => g.close()));
  });

  it('refuses callers who may not halt and records nothing', async () => {
    const ns = `halt-deny-${replicas}`;
    createApp(fleet, ns);
    await waitSteady(fleet, gateways, ns);
    const stranger = await sso.token({ sub: 'mallory-sub' });
    const ci = await github.token(CI_CLAIMS);
    const answers = [
      await halts(first(), ns, undefined, { environment: 'prod', reason: 'x' }),
      await halts(first(), ns, stranger, { environment: 'prod', reason: 'x' }),
      await halts(last(), ns, ci, { environment: 'staging', reason: 'not covered' }),
      await halts(last(), ns, ci, { reason: 'the whole Pipeline' }),
      await halts(first(), ns, await bob(), { environment: 'prod', reason: '' }),
      await halts(first(), ns, await bob(), { environment: 'qa', reason: 'x' }),
      await halts(first(), ns, await bob(), { reason: 'x', expiresAt: '2000-01-01T00:00:00Z' }),
    ];
    expect(answers.map((r) => r.status)).toEqual([401, 403, 403, 403, 400, 404, 400]);
    const codes = await Promise.all(
      answers.map(async (r) => ((await r.json()) as { code: string }).code),
    );
    expect(codes.slice(1)).toEqual([
      'Forbidden',
      'Forbidden',
      'Forbidden',
      'InvalidBody',
      'NotFound',
      'InvalidBody',
    ]);
    expect(pipelineOf(fleet, ns).status?.halts).toBeUndefined();
  }, 30_000);

  it('holds prod while halted through one replica and promotes it once after the lift through another', async () => {
    const ns = `halt-lift-${replicas}`;
    createApp(fleet, ns);
    await waitSteady(fleet, gateways, ns);
    const res = await halts(first(), ns, await bob(), {
      environment: 'prod',
      reason: 'incident 42',
    });
    expect(res.status).toBe(201);
    const { halt } = (await res.json()) as { halt: HaltRecord };
    expect(halt).toMatchObject({
      environment: 'prod',
      principal: 'bob',
      kind: 'human',
      reason: 'incident 42',
    });
    expect(pipelineOf(fleet, ns).status?.halts).toEqual([halt]);

    await prodWouldPromote(gateways, ns);
    const held = await pendingWith(ns, 'Halted', 'prod is halted by bob');
    expect(held.message).toContain('(incident 42), until it is lifted');
    for (const g of gateways) {
      expect(await decisionOf(g, ns, 'prod')).toMatchObject({
        outcome: 'Waiting',
        reason: 'Halted',
        revision: '6.6.0',
      });
    }
    for (const g of gateways) await g.gateway.idle();
    expect(promotionsTo(ns, 'prod')).toBe(0);

    const lifted = await lift(last(), ns, await bob(), halt.id);
    expect(lifted.status).toBe(200);
    // Lifted: a tombstone that holds nothing, kept while bob's token could be replayed.
    expect(pipelineOf(fleet, ns).status?.halts).toEqual([
      { ...halt, liftedAt: expect.any(String) as string, liftedBy: 'bob' },
    ]);
    await promoted(ns, 'prod', '6.6.0');
    for (const g of gateways) await g.gateway.idle();
    expect(promotionsTo(ns, 'prod')).toBe(1);
    // A lifted halt is gone: lifting it again is a 404.
    expect((await lift(first(), ns, await bob(), halt.id)).status).toBe(404);
  }, 60_000);

  it('stops holding when a CI job’s halt expires, with no new event', async () => {
    const ns = `halt-expiry-${replicas}`;
    createApp(fleet, ns);
    await waitSteady(fleet, gateways, ns);
    // A minute ahead, which no slow step before it can outlast: the test then steps every
    // replica's clock to a few seconds before it.
    const end = Math.ceil((Date.now() + 60_000) / 1000) * 1000;
    const expiresAt = new Date(end).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const res = await halts(last(), ns, await github.token(CI_CLAIMS), {
      environment: 'prod',
      reason: 'e2e red',
      expiresAt,
    });
    expect(res.status).toBe(201);
    await prodWouldPromote(gateways, ns);
    await pendingWith(ns, 'Halted', `prod is halted by ci:e2e`);
    expect(promotionsTo(ns, 'prod')).toBe(0);
    // 3 s before the expiry, a pass on every replica (as their periodic ones would); then
    // no event: they look again when it expires, by themselves.
    const ms = Math.max(0, end - 3_000 - Date.now());
    for (const g of gateways) g.advanceClock(ms);
    for (const g of gateways) await g.gateway.resync();
    const attempted = await promoted(ns, 'prod', '6.6.0');
    expect(attempted).toBeGreaterThanOrEqual(end - 1_000); // lastAttemptedTime has whole seconds
    for (const g of gateways) await g.gateway.idle();
    expect(promotionsTo(ns, 'prod')).toBe(1);
  }, 60_000);
});
