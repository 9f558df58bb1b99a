/**
 * Break-glass authorizations through the real gateway (one replica, then two) on kube-sim, with
 * signed statements, SSO tokens and a CI token from local OIDC issuers: a halted prod is not
 * promoted after one break-glass and is promoted exactly once after the quorum of two (through
 * different replicas); a prod frozen by a deny window likewise, with a person and a CI job; a
 * replayed statement is 409 Replayed; a break-glass without a reason is 400, by someone the
 * quorum does not name 403, of an environment nothing holds 409, and none of them is recorded.
 * Each recorded one is in status.environments.prod.approvals and a Warning Event.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthorizationRecord } from '../../src/pipeline/pipeline-resource.js';
import {
  approver,
  postStatement,
  startIssuer,
  statement,
  type TestApprover,
  type TestIssuer,
} from '../support/authorizations.js';
import {
  APP_NAME,
  createApp,
  eventually,
  launchGateway,
  pipelineOf,
  recordOf,
  startTestFleet,
  waitSteady,
  type CoreEvent,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';
import {
  announceRollout,
  apiViewer,
  pendingWith as pendingIn,
  promotionsTo as promotionsIn,
  type ApiViewer,
} from '../support/policy-harness.js';
import type { ConfigInput } from '../../src/config/input.js';

const AUDIENCE = 'promotion-gateway';
const CI_CLAIMS = { repository: 'acme/podinfo', ref: 'refs/heads/main', sub: 'repo:acme/podinfo' };
const REASON = 'incident 42: the hotfix must reach prod';

let fleet: TestFleet;
let sso: TestIssuer;
let github: TestIssuer;
let viewer: ApiViewer;
let alice: TestApprover;
let bob: TestApprover;

beforeAll(async () => {
  [sso, github] = await Promise.all([
    startIssuer('https://sso.example.com'),
    startIssuer('https://token.actions.githubusercontent.com'),
  ]);
  [alice, bob] = await Promise.all([approver('alice'), approver('bob')]);
  fleet = await startTestFleet();
  viewer = await apiViewer();
});
afterAll(async () => {
  await fleet.close();
  await Promise.all([sso.close(), github.close()]);
});

function config(): ConfigInput {
  const issuer = (i: TestIssuer) => ({ issuer: i.issuer, audience: AUDIENCE, jwksUrl: i.jwksUrl });
  const person = (a: TestApprover) => ({
    name: a.name,
    publicKeys: [{ value: a.publicKeyPem }],
    oidcSubjects: [`${sso.issuer}#${a.name}-sub`],
  });
  return {
    jwt: viewer.jwt,
    approvals: {
      approvers: [
        person(alice),
        person(bob),
        { name: 'carol', oidcSubjects: [`${sso.issuer}#carol-sub`] },
      ],
      oidc: issuer(sso),
      breakGlass: { approvers: ['alice', 'bob', 'ci:e2e'] },
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

const ssoToken = (who: string) => sso.token({ sub: `${who}-sub` });

/** A break-glass (or any body) through the SSO door of `env`. */
async function viaSso(g: RunningGateway, ns: string, who: string, body: unknown, env = 'prod') {
  return fetch(`${g.url}/v1/pipelines/${ns}/${APP_NAME}/environments/${env}/approvals`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${await ssoToken(who)}`,
    },
    body: JSON.stringify(body),
  });
}

/** A CI job's break-glass through the promotions door. */
async function viaCi(g: RunningGateway, ns: string, body: unknown) {
  return fetch(`${g.url}/v1/pipelines/${ns}/${APP_NAME}/environments/prod/promotions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${await github.token(CI_CLAIMS)}`,
    },
    body: JSON.stringify(body),
  });
}

const glass = { revision: '6.6.0', decision: 'break-glass', comment: REASON };
/** A signed break-glass of prod at 6.6.0 by `who`; `comment: null` leaves the reason out. */
const signedGlass = (who: TestApprover, ns: string, comment: string | null = REASON) =>
  statement(who, {
    pipeline: `${ns}/${APP_NAME}`,
    environment: 'prod',
    revision: '6.6.0',
    decision: 'break-glass',
    ...(comment === null ? {} : { comment }),
  });

async function halt(g: RunningGateway, ns: string): Promise<void> {
  const res = await fetch(`${g.url}/v1/pipelines/${ns}/${APP_NAME}/halts`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${await ssoToken('carol')}`,
    },
    body: JSON.stringify({ environment: 'prod', reason: 'incident 42' }),
  });
  expect(res.status).toBe(201);
}

const approvalsOf = (ns: string): AuthorizationRecord[] =>
  pipelineOf(fleet, ns).status?.environments?.prod?.approvals ?? [];
const glassEvents = (ns: string) =>
  (
    fleet.management.list('v1', 'Event', ns) as unknown as (CoreEvent & Record<string, string>)[]
  ).filter((e) => e.reason === 'BreakGlassRecorded');
const promotionsTo = (ns: string) => promotionsIn(fleet, ns, 'prod');

async function body(res: Response): Promise<Record<string, unknown>> {
  return (await res.json()) as Record<string, unknown>;
}

async function prodPromoted(ns: string): Promise<void> {
  await eventually(
    () => {
      const r = recordOf(fleet, ns, 'prod');
      if (r?.revision !== '6.6.0' || r.phase !== 'Succeeded')
        throw new Error(`prod's record is ${JSON.stringify(r)}`);
    },
    { timeoutMs: 20_000 },
  );
}

/** dev and staging at 6.6.0 (staging promoted through the gateways), so prod would take it. */
async function prodWouldPromote(gws: readonly RunningGateway[], ns: string): Promise<void> {
  await announceRollout(fleet, gws, ns, 'dev', '6.6.0');
  await eventually(() => recordOf(fleet, ns, 'staging')?.phase === 'Succeeded', {
    timeoutMs: 20_000,
  });
  await announceRollout(fleet, gws, ns, 'staging', '6.6.0');
}

describe.each([1, 2])('break-glass with %i gateway replica(s)', (replicas) => {
  let gateways: RunningGateway[] = [];
  const replica = (i: number): RunningGateway => {
    const g = gateways[i];
    if (g === undefined) throw new Error(`no replica ${String(i)}`);
    return g;
  };
  const first = () => replica(0);
  const last = () => replica(gateways.length - 1);
  const idle = async () => {
    for (const g of gateways) await g.gateway.idle();
  };

  beforeAll(async () => {
    gateways = await Promise.all(
      Array.from({ length: replicas }, (_, i) =>
        launchGateway(fleet, { instanceId: `glass-${replicas}-${i}`, config: config() }),
      ),
    );
  });
  afterAll(async () => {
    await Promise.all(gateways.map((g) => g.close()));
  });

  it('refuses a break-glass without a reason, by someone not named, or of nothing held', async () => {
    const ns = `glass-deny-${replicas}`;
    createApp(fleet, ns);
    await waitSteady(fleet, gateways, ns);
    await halt(first(), ns);
    await prodWouldPromote(gateways, ns);
    await pendingIn(fleet, ns, 'Halted', 'break-glass: 0 of 2');
    const answers = [
      await viaSso(first(), ns, 'alice', { revision: '6.6.0', decision: 'break-glass' }),
      await viaSso(last(), ns, 'alice', { ...glass, comment: '   ' }),
      await postStatement(last().url, ns, 'prod', await signedGlass(alice, ns, null)),
      await viaCi(first(), ns, { revision: '6.6.0', decision: 'break-glass' }),
      await viaSso(first(), ns, 'carol', glass),
      await viaSso(last(), ns, 'alice', { ...glass, revision: '6.5.9' }),
      await viaSso(first(), ns, 'alice', glass, 'staging'),
    ];
    const got = await Promise.all(answers.map(async (r) => [r.status, (await body(r)).code]));
    expect(got).toEqual([
      [400, 'InvalidBody'],
      [400, 'InvalidBody'],
      [400, 'InvalidBody'],
      [400, 'InvalidBody'],
      [403, 'Forbidden'],
      [409, 'NotWaiting'],
      [409, 'NotWaiting'],
    ]);
    const carol = await viaSso(first(), ns, 'carol', glass);
    expect((await body(carol)).message).toContain('carol may not break the glass for prod');
    expect(approvalsOf(ns)).toEqual([]);
    expect(glassEvents(ns)).toEqual([]);
    await idle();
    expect(promotionsTo(ns)).toBe(0);
  }, 60_000);

  it('promotes a halted prod once after the quorum of two, not after one; a replay is 409', async () => {
    const ns = `glass-halt-${replicas}`;
    createApp(fleet, ns);
    await waitSteady(fleet, gateways, ns);
    await halt(first(), ns);
    await prodWouldPromote(gateways, ns);
    await pendingIn(fleet, ns, 'Halted', 'prod is halted by carol');

    const byAlice = await signedGlass(alice, ns);
    const one = await postStatement(first().url, ns, 'prod', byAlice);
    expect(one.status).toBe(202);
    expect(await body(one)).toMatchObject({
      recorded: true,
      decision: 'break-glass',
      principal: 'alice',
      state: 'waiting',
      breakGlass: { required: 2, recordedBy: ['alice'], met: false },
    });
    const replay = await postStatement(last().url, ns, 'prod', byAlice);
    expect([replay.status, (await body(replay)).code]).toEqual([409, 'Replayed']);
    await pendingIn(fleet, ns, 'Halted', 'break-glass: 1 of 2 (alice)');
    for (const g of gateways) {
      expect(await viewer.decisionOf(g, ns, 'prod')).toMatchObject({ reason: 'Halted' });
    }
    await idle();
    expect(promotionsTo(ns)).toBe(0);

    const two = await viaSso(last(), ns, 'bob', glass);
    expect(two.status).toBe(202);
    expect(await body(two)).toMatchObject({
      principal: 'bob',
      state: 'approved',
      breakGlass: { required: 2, recordedBy: ['alice', 'bob'], met: true },
    });
    await prodPromoted(ns);
    await idle();
    expect(promotionsTo(ns)).toBe(1);
    // The halt stays: it held nothing but what the break-glass let through.
    expect(pipelineOf(fleet, ns).status?.halts?.length).toBe(1);
    expect(approvalsOf(ns)).toEqual([
      expect.objectContaining({ principal: 'alice', decision: 'break-glass', comment: REASON }),
      expect.objectContaining({ principal: 'bob', decision: 'break-glass', comment: REASON }),
    ]);
    expect(approvalsOf(ns)[0]?.statement).toBe(byAlice);
    const events = await eventually(() => {
      const found = glassEvents(ns);
      if (found.length < 2) throw new Error(`${String(found.length)} BreakGlassRecorded Events`);
      return found;
    });
    expect(events.map((e) => e.type)).toEqual(['Warning', 'Warning']);
    expect(events.map((e) => e.message).sort()).toEqual([
      `alice broke the glass of prod for 6.6.0 (1 of 2 break-glass authorizations): ${REASON}`,
      `bob broke the glass of prod for 6.6.0 (2 of 2 break-glass authorizations): ${REASON}`,
    ]);
  }, 60_000);

  it('promotes a prod frozen by a deny window once after a person and a CI job break the glass', async () => {
    const ns = `glass-freeze-${replicas}`;
    createApp(fleet, ns, {
      prodPromotion: {
        windows: [
          { name: 'freeze', type: 'Deny', cron: '0 0 * * *', timeZone: 'UTC', duration: 'P2D' },
        ],
      },
    });
    await waitSteady(fleet, gateways, ns);
    await prodWouldPromote(gateways, ns);
    await pendingIn(fleet, ns, 'InDenyWindow', 'break-glass: 0 of 2');

    const one = await viaSso(first(), ns, 'alice', glass);
    expect([one.status, (await body(one)).state]).toEqual([202, 'waiting']);
    await pendingIn(fleet, ns, 'InDenyWindow', 'break-glass: 1 of 2 (alice)');
    await idle();
    expect(promotionsTo(ns)).toBe(0);

    const ci = await viaCi(last(), ns, glass);
    expect(ci.status).toBe(202);
    expect(await body(ci)).toMatchObject({
      principal: 'ci:e2e',
      breakGlass: { recordedBy: ['alice', 'ci:e2e'], met: true },
    });
    await prodPromoted(ns);
    await idle();
    expect(promotionsTo(ns)).toBe(1);
  }, 60_000);
});
