/**
 * The other authorization doors through real HTTP against kube-sim: CI jobs' OIDC tokens
 * (GitHub Actions and GitLab CI shapes, from a real JWKS endpoint on loopback), people's SSO
 * tokens, and weave's legacy approval call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signBody } from '../../src/auth/hmac.js';
import type { ApprovalSpec } from '../../src/pipeline/pipeline-resource.js';
import { postPromotion, startIssuer, type TestIssuer } from '../support/authorizations.js';
import {
  APP_NAME,
  createApp,
  eventually,
  launchGateway,
  pipelineOf,
  recordOf,
  rollOut,
  startTestFleet,
  waitSteady,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';

const GITHUB = {
  repository: 'acme/podinfo',
  ref: 'refs/heads/main',
  workflow_ref: 'acme/podinfo/.github/workflows/e2e.yml@refs/heads/main',
  environment: 'staging',
  sub: 'repo:acme/podinfo:environment:staging',
};
const GITLAB = {
  project_path: 'acme/podinfo',
  ref: 'main',
  ref_protected: 'true',
  sub: 'project_path:acme/podinfo:ref_type:branch:ref:main',
};
const LEGACY_KEY = Buffer.from('legacy-approval-key');

let fleet: TestFleet;
let gw: RunningGateway;
let github: TestIssuer;
let gitlab: TestIssuer;
let sso: TestIssuer;

beforeAll(async () => {
  [github, gitlab, sso] = await Promise.all([
    startIssuer('https://token.actions.githubusercontent.com'),
    startIssuer('https://gitlab.example.com'),
    startIssuer('https://sso.example.com'),
  ]);
  fleet = await startTestFleet();
  const issuer = (name: string, i: TestIssuer) => ({
    name,
    issuer: i.issuer,
    audience: 'promotion-gateway',
    jwksUrl: i.jwksUrl,
  });
  gw = await launchGateway(fleet, {
    config: {
      approvals: {
        approvers: [{ name: 'bob', oidcSubjects: [`${sso.issuer}#bob-sub`], groups: [] }],
        oidc: { issuer: sso.issuer, audience: 'promotion-gateway', jwksUrl: sso.jwksUrl },
        legacyEndpoint: true,
      },
      ci: {
        issuers: [issuer('github', github), issuer('gitlab', gitlab)],
        policies: [
          {
            name: 'e2e',
            issuer: 'github',
            claims: {
              repository: 'acme/podinfo',
              ref: 'refs/heads/main',
              workflow_ref: 'acme/podinfo/.github/workflows/e2e.yml@*',
            },
            pipelines: ['*'],
            environments: ['prod'],
          },
          {
            name: 'gitlab-deploy',
            issuer: 'gitlab',
            claims: { project_path: 'acme/podinfo', ref: 'main', ref_protected: 'true' },
            pipelines: ['ci-gitlab/*'],
            environments: ['prod', 'staging'],
          },
        ],
      },
    },
  });
});
afterAll(async () => {
  await gw.close();
  await fleet.close();
  await Promise.all([github.close(), gitlab.close(), sso.close()]);
});

/** ns/podinfo with prod gated; dev and staging run `version`. */
async function upstreamAt(
  ns: string,
  version: string,
  gate?: { manual?: boolean; approval?: ApprovalSpec },
  legacyKey?: Buffer,
) {
  createApp(fleet, ns, {
    ...(gate === undefined ? {} : { prodPromotion: gate }),
    ...(legacyKey === undefined ? {} : { legacyKey }),
  });
  await waitSteady(fleet, [gw], ns);
  rollOut(fleet.dev, ns, version);
  rollOut(fleet.staging, ns, version);
  await gw.gateway.resync();
  await gw.gateway.idle();
}

async function code(res: Response): Promise<[number, string]> {
  const body = (await res.json()) as { code?: string; state?: string };
  return [res.status, body.code ?? body.state ?? ''];
}

describe('CI-triggered promotions', () => {
  it('promote a gated environment that names the CI policy, only at the verified revision', async () => {
    const ns = 'ci-github';
    await upstreamAt(ns, '6.6.0', { approval: { approvers: ['ci:e2e'] } });
    // Asked before upstream runs 6.7.0: refused, and it does nothing later by itself.
    const early = await postPromotion(gw.url, ns, 'prod', await github.token(GITHUB), '6.7.0');
    expect(await code(early)).toEqual([409, 'NotWaiting']);
    rollOut(fleet.dev, ns, '6.7.0');
    rollOut(fleet.staging, ns, '6.7.0');
    await gw.gateway.resync();
    await gw.gateway.idle();
    expect(recordOf(fleet, ns, 'prod')).toBeUndefined();
    const asked = await postPromotion(gw.url, ns, 'prod', await github.token(GITHUB), '6.7.0');
    expect(asked.status).toBe(202);
    expect(await asked.json()).toMatchObject({ principal: 'ci:e2e', state: 'approved' });
    await eventually(() => {
      expect(recordOf(fleet, ns, 'prod')).toMatchObject({ revision: '6.7.0', phase: 'Succeeded' });
    });
    const stored = pipelineOf(fleet, ns).status?.environments?.prod?.approvals ?? [];
    expect(stored.map((r) => [r.principal, r.kind, r.revision])).toEqual([
      ['ci:e2e', 'ci', '6.7.0'],
    ]);
  });

  it('take GitLab CI tokens under their own policy', async () => {
    const ns = 'ci-gitlab';
    await upstreamAt(ns, '6.6.0', { approval: { approvers: ['ci:gitlab-deploy'] } });
    const res = await postPromotion(gw.url, ns, 'prod', await gitlab.token(GITLAB), '6.6.0');
    expect(await code(res)).toEqual([202, 'approved']);
    const unprotected = await gitlab.token({ ...GITLAB, ref_protected: 'false' });
    expect((await postPromotion(gw.url, ns, 'prod', unprotected, '6.6.0')).status).toBe(403);
  });

  it('refuse wrong claims (403), and wrong audience, expiry, key or missing jti (401)', async () => {
    const ns = 'ci-refused';
    await upstreamAt(ns, '6.6.0', { approval: { approvers: ['ci:e2e'] } });
    const now = Math.floor(Date.now() / 1000);
    const cases: [string, Promise<string>, number][] = [
      ['another repository', github.token({ ...GITHUB, repository: 'evil/podinfo' }), 403],
      ['another ref', github.token({ ...GITHUB, ref: 'refs/heads/feature' }), 403],
      [
        'another workflow',
        github.token({ ...GITHUB, workflow_ref: 'acme/podinfo/.github/workflows/x.yml@main' }),
        403,
      ],
      ['another audience', github.token(GITHUB, { audience: 'someone-else' }), 401],
      ['an expired token', github.token({ ...GITHUB, iat: now - 900, exp: now - 300 }), 401],
      [
        'a token issued too long ago',
        github.token({ ...GITHUB, iat: now - 7200, exp: now + 600 }),
        401,
      ],
      [
        'a token from the future',
        github.token({ ...GITHUB, iat: now + 3600, exp: now + 7200 }),
        401,
      ],
      ['another signing key', github.token(GITHUB, { key: 'other' }), 401],
      ['a token without jti', github.token({ ...GITHUB, jti: undefined }), 401],
    ];
    for (const [what, token, status] of cases) {
      const res = await postPromotion(gw.url, ns, 'prod', await token, '6.6.0');
      expect([what, res.status]).toEqual([what, status]);
    }
    await gw.gateway.idle();
    expect(pipelineOf(fleet, ns).status?.environments?.prod?.approvals).toBeUndefined();
  });

  it('refuse a CI principal the gate does not name, and a policy that does not cover the env', async () => {
    const ns = 'ci-unlisted';
    await upstreamAt(ns, '6.6.0', { manual: true });
    expect(
      (await postPromotion(gw.url, ns, 'prod', await github.token(GITHUB), '6.6.0')).status,
    ).toBe(403);
    expect(
      (await postPromotion(gw.url, ns, 'staging', await github.token(GITHUB), '6.6.0')).status,
    ).toBe(403);
  });

  it('ask only for a verified re-check on an ungated environment', async () => {
    const ns = 'ci-gitlab-open';
    await upstreamAt(ns, '6.6.0');
    const res = await postPromotion(
      gw.url,
      'ci-gitlab-open',
      'prod',
      await gitlab.token(GITLAB),
      '6.6.0',
    );
    expect(res.status).toBe(403); // ci-gitlab/* does not cover ci-gitlab-open
    const ok = await postPromotion(gw.url, ns, 'prod', await github.token(GITHUB), '6.6.0');
    expect(await ok.json()).toMatchObject({ recorded: false, state: 'recheck' });
    expect(pipelineOf(fleet, ns).status?.environments?.prod?.approvals).toBeUndefined();
  });

  it('fetch an issuer JWKS once for many tokens', async () => {
    const before = github.jwksFetches();
    const ns = 'ci-refused';
    for (let i = 0; i < 5; i++)
      await postPromotion(gw.url, ns, 'prod', await github.token(GITHUB), '0.0.0');
    expect(github.jwksFetches() - before).toBe(0);
    expect(github.jwksFetches()).toBe(1);
  });
});

describe('approvals through SSO', () => {
  function approve(ns: string, token: string, revision: string) {
    return fetch(`${gw.url}/v1/pipelines/${ns}/${APP_NAME}/environments/prod/approvals`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ revision, decision: 'approve', comment: 'LGTM' }),
    });
  }

  it('record a configured approver by their SSO identity, and a group member by the claim', async () => {
    const ns = 'sso';
    await upstreamAt(ns, '6.6.0', {
      approval: { minApprovals: 2, approvers: ['bob', 'group:sre'] },
    });
    const first = await approve(ns, await sso.token({ sub: 'bob-sub' }), '6.6.0');
    expect(await first.json()).toMatchObject({ principal: 'bob', state: 'waiting' });
    const stranger = await approve(
      ns,
      await sso.token({ sub: 'eve-sub', groups: ['dev'] }),
      '6.6.0',
    );
    expect(stranger.status).toBe(403);
    const member = await approve(ns, await sso.token({ sub: 'sam-sub', groups: ['sre'] }), '6.6.0');
    expect(await member.json()).toMatchObject({
      principal: `oidc:${sso.issuer}#sam-sub`,
      state: 'approved',
    });
    await eventually(() => {
      expect(recordOf(fleet, ns, 'prod')).toMatchObject({ revision: '6.6.0', phase: 'Succeeded' });
    });
    const stored = pipelineOf(fleet, ns).status?.environments?.prod?.approvals ?? [];
    expect(stored.map((r) => r.comment)).toEqual(['LGTM', 'LGTM']);
    expect(JSON.stringify(stored)).not.toContain('eyJ');
  });

  it('record a token whose jti and subject exceed what the status can hold, once (no 5xx)', async () => {
    const ns = 'sso-long';
    await upstreamAt(ns, '6.6.0', { approval: { minApprovals: 2, approvers: ['group:sre'] } });
    // An identity provider may issue ids longer than the Pipeline CRD's fields (jti <= 256,
    // principal <= 512): the record keeps a digest of each instead, so the write still lands.
    const jti = `jti-${'x'.repeat(400)}`;
    const sub = `sub-${'y'.repeat(700)}`;
    const token = await sso.token({ sub, groups: ['sre'], jti });
    const first = await approve(ns, token, '6.6.0');
    expect(first.status).toBe(202);
    expect(await first.json()).toMatchObject({ state: 'waiting' });
    const stored = pipelineOf(fleet, ns).status?.environments?.prod?.approvals ?? [];
    expect(stored).toHaveLength(1);
    expect(stored[0]?.jti).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(stored[0]?.principal.length).toBeLessThanOrEqual(512);
    expect(stored[0]?.principal).toMatch(/^oidc:sha256:[0-9a-f]{64}$/);
    // The same token again is a replay, recognised through the digest.
    expect(await code(await approve(ns, token, '6.6.0'))).toEqual([409, 'Replayed']);
    // Another long-named member completes the quorum.
    const other = await sso.token({ sub: `${sub}-2`, groups: ['sre'], jti: `${jti}-2` });
    expect(await approve(ns, other, '6.6.0').then((r) => r.json())).toMatchObject({
      state: 'approved',
    });
    await eventually(() => {
      expect(recordOf(fleet, ns, 'prod')).toMatchObject({ revision: '6.6.0', phase: 'Succeeded' });
    });
  });

  it('refuse an old SSO token and a body without a decision', async () => {
    const ns = 'sso';
    const now = Math.floor(Date.now() / 1000);
    expect(
      (await approve(ns, await sso.token({ sub: 'bob-sub', iat: now - 3600 }), '6.6.0')).status,
    ).toBe(401);
    const res = await fetch(
      `${gw.url}/v1/pipelines/${ns}/${APP_NAME}/environments/prod/approvals`,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${await sso.token({ sub: 'bob-sub' })}`,
        },
        body: JSON.stringify({ revision: '6.6.0' }),
      },
    );
    expect(await code(res)).toEqual([400, 'InvalidBody']);
  });

  it('refuse a call with no body at all, at every door that takes JSON or a statement', async () => {
    const token = await sso.token({ sub: 'bob-sub' });
    for (const path of [
      `/v1/pipelines/sso/${APP_NAME}/environments/prod/approvals`,
      `/v1/pipelines/sso/${APP_NAME}/environments/prod/rollbacks`,
      '/v1/halts',
      `/v1/pipelines/sso/${APP_NAME}/halts`,
      '/v1/trains/sso/release/environments/prod/approvals',
    ]) {
      const res = await fetch(`${gw.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
      });
      expect([path, ...(await code(res))]).toEqual([path, 400, 'InvalidBody']);
    }
  });
});

describe("weave's legacy approval call", () => {
  it('approves only the revision the gate waits for, when enabled', async () => {
    const ns = 'legacy-approval';
    await upstreamAt(ns, '6.6.0', { manual: true }, LEGACY_KEY);
    const call = (revision: string, key = LEGACY_KEY) =>
      fetch(`${gw.url}/approval/${ns}/${APP_NAME}/prod/${revision}`, {
        method: 'POST',
        headers: { 'x-signature': signBody(Buffer.alloc(0), key) },
      });
    expect((await call('6.6.0', Buffer.from('wrong'))).status).toBe(401);
    expect(await code(await call('6.5.0'))).toEqual([409, 'NotWaiting']);
    expect(await code(await call('6.6.0'))).toEqual([202, 'approved']);
    await eventually(() => {
      expect(recordOf(fleet, ns, 'prod')).toMatchObject({ revision: '6.6.0', phase: 'Succeeded' });
    });
    expect(pipelineOf(fleet, ns).status?.environments?.prod?.approvals?.[0]).toMatchObject({
      principal: 'legacy-hmac',
      kind: 'legacy',
    });
  });

  it('is not served by default', async () => {
    const plain = await launchGateway(fleet, { instanceId: 'no-legacy' });
    try {
      const res = await fetch(`${plain.url}/approval/legacy-approval/${APP_NAME}/prod/6.6.0`, {
        method: 'POST',
        headers: { 'x-signature': signBody(Buffer.alloc(0), LEGACY_KEY) },
      });
      expect(res.status).toBe(404);
    } finally {
      await plain.close();
    }
  });
});
