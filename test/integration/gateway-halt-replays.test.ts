/**
 * Signed halt statements and replays through the real gateway (one replica, then two) on
 * kube-sim: an approver's statement halts every Pipeline its selector matches (the statement
 * kept in each record) and a lift statement frees them; after a lift, the same halt statement
 * or the same CI token is answered 409 Replayed by every replica and halts nothing again; an
 * approval statement never passes for a halt, nor a halt statement for an approval.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signHaltStatement, type HaltStatementClaims } from '../../src/auth/halt-statement.js';
import type { HaltRecord } from '../../src/pipeline/pipeline-resource.js';
import {
  approver,
  approverConfig,
  postStatement,
  startIssuer,
  statement,
  type TestApprover,
  type TestIssuer,
} from '../support/authorizations.js';
import {
  createApp,
  eventually,
  launchGateway,
  pipelineOf,
  startTestFleet,
  waitSteady,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';

const AUDIENCE = 'promotion-gateway';
const CI_CLAIMS = { repository: 'acme/podinfo', ref: 'refs/heads/main', sub: 'repo:acme/podinfo' };

let fleet: TestFleet;
let sso: TestIssuer;
let github: TestIssuer;
let carol: TestApprover;

beforeAll(async () => {
  [sso, github, carol] = await Promise.all([
    startIssuer('https://sso.example.com'),
    startIssuer('https://token.actions.githubusercontent.com'),
    approver('carol'),
  ]);
  fleet = await startTestFleet();
});
afterAll(async () => {
  await fleet.close();
  await Promise.all([sso.close(), github.close()]);
});

function config() {
  const issuer = (i: TestIssuer) => ({ issuer: i.issuer, audience: AUDIENCE, jwksUrl: i.jwksUrl });
  return {
    approvals: {
      approvers: [
        { name: 'bob', oidcSubjects: [`${sso.issuer}#bob-sub`], groups: [] },
        ...approverConfig([carol]),
      ],
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

const bob = () => sso.token({ sub: 'bob-sub' });

function labelledApp(ns: string, labels: Record<string, string>): void {
  createApp(fleet, ns);
  const { resourceVersion: _rv, ...metadata } = pipelineOf(fleet, ns).metadata;
  fleet.management.apply({ ...pipelineOf(fleet, ns), metadata: { ...metadata, labels } });
}

function signed(claims: Partial<HaltStatementClaims>): Promise<string> {
  const iat = Math.floor(Date.now() / 1000);
  const base = { sub: 'carol', iat, exp: iat + 300, jti: randomUUID(), action: 'halt' as const };
  return signHaltStatement({ ...base, ...claims }, carol.privateKey, 'EdDSA');
}

function post(g: RunningGateway, path: string, body: string, auth?: string) {
  const json = auth !== undefined;
  return fetch(`${g.url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': json ? 'application/json' : 'application/jose',
      ...(json ? { authorization: `Bearer ${auth}` } : {}),
    },
    body,
  });
}

/** DELETE /v1/halts/{id} by bob, once the replica's watch has seen the halt. */
function liftEverywhere(g: RunningGateway, id: string): Promise<Response> {
  return eventually(async () => {
    const res = await fetch(`${g.url}/v1/halts/${id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${await bob()}` },
    });
    if (res.status === 404) throw new Error('not seen yet');
    return res;
  });
}

const haltsOf = (ns: string): HaltRecord[] => pipelineOf(fleet, ns).status?.halts ?? [];
const inForce = (ns: string) => haltsOf(ns).filter((h) => h.liftedAt === undefined);

describe.each([1, 2])('signed halts and replays with %i gateway replica(s)', (replicas) => {
  let gateways: RunningGateway[] = [];
  const replica = (i: number): RunningGateway => {
    const g = gateways[i];
    if (g === undefined) throw new Error(`no replica ${String(i)}`);
    return g;
  };
  const first = () => replica(0);
  const last = () => replica(gateways.length - 1);
  const run = `r${String(replicas)}`;
  const ns = (app: string) => `halt-replay-${run}-${app}`;

  beforeAll(async () => {
    labelledApp(ns('s'), { team: 'stmt', run });
    labelledApp(ns('t'), { team: 'stmt', run });
    labelledApp(ns('c'), { team: 'ci', run });
    gateways = await Promise.all(
      Array.from({ length: replicas }, (_, i) =>
        launchGateway(fleet, { instanceId: `halt-replays-${run}-${String(i)}`, config: config() }),
      ),
    );
    for (const app of ['s', 't', 'c']) await waitSteady(fleet, gateways, ns(app));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(gateways.map((g) => g.close()));
  });

  it('halts by statement, lifts by statement, and refuses the halt statement again', async () => {
    const selector = `team=stmt,run=${run}`;
    const halt = await signed({ selector, environment: 'prod', reason: 'freeze by statement' });
    const res = await post(first(), '/v1/halts', halt);
    expect(res.status).toBe(201);
    const answer = (await res.json()) as { halt: HaltRecord; pipelines: { outcome: string }[] };
    expect(answer.pipelines.map((p) => p.outcome)).toEqual(['halted', 'halted']);
    for (const app of ['s', 't'])
      expect(haltsOf(ns(app))).toEqual([
        expect.objectContaining({
          id: answer.halt.id,
          principal: 'carol',
          kind: 'human',
          selector: `run=${run},team=stmt`,
          statement: halt,
          jti: expect.any(String) as string,
          credentialExpiresAt: expect.any(String) as string,
        }),
      ]);

    const lift = await signed({ action: 'lift', haltId: answer.halt.id });
    const lifted = await eventually(async () => {
      const r = await post(last(), '/v1/halts', lift);
      if (r.status === 404) throw new Error('not seen yet');
      return r;
    });
    expect(lifted.status).toBe(200);
    for (const app of ['s', 't']) {
      expect(haltsOf(ns(app))).toMatchObject([{ id: answer.halt.id, liftedBy: 'carol' }]);
      expect(inForce(ns(app))).toEqual([]);
    }
    for (const g of gateways) {
      const replay = await post(g, '/v1/halts', halt);
      expect([replay.status, ((await replay.json()) as { code: string }).code]).toEqual([
        409,
        'Replayed',
      ]);
    }
    expect((await post(first(), '/v1/halts', lift)).status).toBe(404);
    for (const app of ['s', 't']) expect(inForce(ns(app))).toEqual([]);
  }, 60_000);

  it('halts one Pipeline by statement, and keeps each kind of statement to its door', async () => {
    const s = ns('s');
    const one = await signed({ pipeline: `${s}/podinfo`, reason: 'one Pipeline' });
    const res = await post(last(), '/v1/halts', one);
    expect(res.status).toBe(201);
    expect(inForce(s)).toMatchObject([{ statement: one, reason: 'one Pipeline' }]);
    const approval = await statement(carol, {
      pipeline: `${s}/podinfo`,
      environment: 'prod',
      revision: '6.5.0',
    });
    expect((await post(first(), '/v1/halts', approval)).status).toBe(401);
    const asApproval = await signed({ pipeline: `${s}/podinfo`, environment: 'prod', reason: 'x' });
    expect((await postStatement(first().url, s, 'prod', asApproval)).status).toBe(401);
    expect(inForce(s)).toHaveLength(1);
  }, 30_000);

  it('refuses a replayed CI token after the lift, through either door, and halts nothing', async () => {
    const c = ns('c');
    const token = await github.token(CI_CLAIMS);
    const body = JSON.stringify({ environment: 'prod', reason: 'e2e red' });
    const halted = await post(first(), `/v1/pipelines/${c}/podinfo/halts`, body, token);
    expect(halted.status).toBe(201);
    const { halt } = (await halted.json()) as { halt: HaltRecord };
    expect((await liftEverywhere(last(), halt.id)).status).toBe(200);
    const fleetToken = await github.token(CI_CLAIMS);
    const fleetBody = JSON.stringify({
      selector: `team=ci,run=${run}`,
      environment: 'prod',
      reason: 'r',
    });
    const fleetHalt = await post(last(), '/v1/halts', fleetBody, fleetToken);
    expect(fleetHalt.status).toBe(201);
    const { halt: second } = (await fleetHalt.json()) as { halt: HaltRecord };
    expect((await liftEverywhere(first(), second.id)).status).toBe(200);
    const stored = haltsOf(c);
    expect(stored.map((h) => h.liftedAt === undefined)).toEqual([false, false]);
    for (const g of gateways) {
      const replays = [
        await post(g, `/v1/pipelines/${c}/podinfo/halts`, body, token),
        await post(g, '/v1/halts', fleetBody, fleetToken),
      ];
      const answers = await Promise.all(
        replays.map(async (r) => [r.status, ((await r.json()) as { code: string }).code]),
      );
      expect(answers).toEqual([
        [409, 'Replayed'],
        [409, 'Replayed'],
      ]);
    }
    expect(haltsOf(c)).toEqual(stored);
    // A CI job halts one environment at a time, here as on the door of one Pipeline.
    const whole = JSON.stringify({ selector: `team=ci,run=${run}`, reason: 'r' });
    expect((await post(first(), '/v1/halts', whole, await github.token(CI_CLAIMS))).status).toBe(
      403,
    );
  }, 60_000);
});
