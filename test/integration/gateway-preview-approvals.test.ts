/**
 * Approvals bound to a preview, through real HTTP against kube-sim and forge-sim, with one
 * gateway and with two replicas: a statement signed over a preview stops counting when the
 * pull request's base branch moves before the promotion, and one whose digest already differs
 * is refused 409 PreviewChanged and recorded nowhere.
 */
import { startForge, type ForgeHandle } from 'forge-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import { previewOf, readTokens, type ReadTokens } from '../support/preview.js';
import { prepareRepository, repoName } from '../support/pull-request.js';

let fleet: TestFleet;
let forge: ForgeHandle;
let alice: TestApprover;
let bob: TestApprover;
let tokens: ReadTokens;
let forgeToken: string;
let sso: TestIssuer;
const running: RunningGateway[] = [];

beforeAll(async () => {
  [fleet, forge, alice, bob, tokens] = await Promise.all([
    startTestFleet(),
    startForge({ kind: 'github' }),
    approver('alice'),
    approver('bob'),
    readTokens(),
  ]);
  sso = await startIssuer('https://sso.preview.test');
  forgeToken = forge.addToken('promoter');
});
afterAll(async () => {
  await Promise.all(running.map((g) => g.close()));
  await Promise.all([forge.close(), fleet.close(), sso.close()]);
});

async function replica(instanceId: string): Promise<RunningGateway> {
  const gw = await launchGateway(fleet, {
    instanceId,
    config: {
      jwt: tokens.config,
      approvals: {
        approvers: [
          ...approverConfig([alice, bob]),
          { name: 'carol', oidcSubjects: [`${sso.issuer}#carol-sub`], groups: [] },
        ],
        oidc: { issuer: sso.issuer, audience: 'promotion-gateway', jwksUrl: sso.jwksUrl },
      },
      promotion: {
        pullRequest: { allowPlainHttp: true, refreshIntervalMs: 0 },
        retry: { maxAttempts: 3, backoffBaseMs: 100, backoffMaxMs: 1000 },
      },
    },
  });
  running.push(gw);
  return gw;
}

/** ns/podinfo promoting prod by pull request behind two approvals; dev and staging run 6.6.0. */
async function prodWaits(ns: string, replicas: RunningGateway[]): Promise<string> {
  const repo = repoName('github', ns);
  const prodStrategy = await prepareRepository(fleet, forge, ns, {
    repo,
    token: forgeToken,
    version: '6.5.0',
  });
  createApp(fleet, ns, { prodStrategy, prodPromotion: { approval: { minApprovals: 2 } } });
  await waitSteady(fleet, replicas, ns);
  rollOut(fleet.dev, ns, '6.6.0');
  rollOut(fleet.staging, ns, '6.6.0');
  for (const r of replicas) {
    await r.gateway.resync();
    await r.gateway.idle();
  }
  await eventually(() => {
    expect(pipelineOf(fleet, ns).status?.environments?.prod?.waitingApproval).toMatchObject({
      revision: '6.6.0',
    });
  });
  return repo;
}

async function approve(gw: RunningGateway, ns: string, who: TestApprover, previewDigest: string) {
  const claims = { pipeline: `${ns}/${APP_NAME}`, environment: 'prod', revision: '6.6.0' };
  return postStatement(gw.url, ns, 'prod', await statement(who, { ...claims, previewDigest }));
}

const ssoToken = () => sso.token({ sub: 'carol-sub' });

/** Each case previews by Git fetches in this process, on two replicas: slow on a busy machine. */
const PREVIEW_TEST_MS = 90_000;

const approvals = (ns: string) => pipelineOf(fleet, ns).status?.environments?.prod?.approvals ?? [];

describe.each([1, 2])('approvals bound to a preview, %i replica(s)', (count) => {
  let replicas: RunningGateway[];
  beforeAll(async () => {
    const ids = Array.from({ length: count }, (_, i) => `preview-${String(count)}-${String(i)}`);
    replicas = await Promise.all(ids.map((id) => replica(id)));
  });
  const first = () => replicas[0]!;
  const last = () => replicas[replicas.length - 1]!;

  it(
    'stop counting when the base branch moves before the promotion',
    async () => {
      const ns = `pv-moved-${String(count)}`;
      const repo = await prodWaits(ns, replicas);
      const token = await tokens.token([`${ns}/*`]);
      const seen = await previewOf(first().url, ns, 'prod', token);
      // Every replica names the same change with the same digest.
      expect(await previewOf(last().url, ns, 'prod', token)).toEqual(seen);
      expect((await approve(first(), ns, alice, seen.digest)).status).toBe(202);
      expect(approvals(ns)).toEqual([
        expect.objectContaining({ principal: 'alice', previewDigest: seen.digest }),
      ]);

      // Someone else's commit lands on main: the change the pull request would make is another.
      await forge.commit(repo, 'main', { 'README.md': '# fleet\n\nhotfix\n' }, 'hotfix');
      const now = await previewOf(last().url, ns, 'prod', token);
      expect(now.digest).not.toBe(seen.digest);
      if (now.change.kind !== 'pull-request') throw new Error(now.change.kind);
      expect(now.change.baseCommit).toBe(await forge.branchHead(repo, 'main'));
      expect((await approve(last(), ns, bob, now.digest)).status).toBe(202);
      for (const r of replicas) {
        await r.gateway.resync();
        await r.gateway.idle();
      }
      // Two approvals recorded, one counting: nothing is proposed.
      expect(forge.pullRequests(repo)).toEqual([]);
      expect(recordOf(fleet, ns, 'prod')).toBeUndefined();
      const decision = last().gateway.view({ namespace: ns, name: APP_NAME })?.decisions[2];
      expect(decision).toMatchObject({
        outcome: 'WaitingApproval',
        reason: 'PreviewChanged',
        gate: {
          approvedBy: ['bob'],
          previewChanged: [{ principal: 'alice', digest: seen.digest }],
          summary: '1 of 2 approvals',
        },
      });

      // alice approves what the change is now: it promotes, on the base she saw.
      expect((await approve(first(), ns, alice, now.digest)).status).toBe(202);
      await eventually(() => {
        expect(recordOf(fleet, ns, 'prod')).toMatchObject({
          revision: '6.6.0',
          phase: 'Succeeded',
        });
      });
      const requests = forge.pullRequests(repo);
      expect(requests).toHaveLength(1);
      const log = await forge.log(repo, requests[0]?.head ?? '');
      expect(log[0]?.parents).toEqual([now.change.baseCommit]);
    },
    PREVIEW_TEST_MS,
  );

  it(
    'refuse an approval whose digest already differs, signed or through SSO, with 409 PreviewChanged, recording nothing',
    async () => {
      const ns = `pv-stale-${String(count)}`;
      const repo = await prodWaits(ns, replicas);
      const token = await tokens.token([`${ns}/*`]);
      const seen = await previewOf(first().url, ns, 'prod', token);
      await forge.commit(repo, 'main', { 'README.md': '# fleet\n\nhotfix\n' }, 'hotfix');
      const before = pipelineOf(fleet, ns).metadata.resourceVersion;
      const res = await approve(last(), ns, alice, seen.digest);
      expect(res.status).toBe(409);
      const body = (await res.json()) as { code: string; message: string };
      expect(body.code).toBe('PreviewChanged');
      const now = await previewOf(last().url, ns, 'prod', token);
      expect(body.message).toContain(now.digest);
      expect(approvals(ns)).toEqual([]);
      expect(pipelineOf(fleet, ns).metadata.resourceVersion).toBe(before);
      // A malformed digest is refused before anything is judged.
      const claims = { pipeline: `${ns}/${APP_NAME}`, environment: 'prod', revision: '6.6.0' };
      const bad = await statement(alice, { ...claims, previewDigest: 'sha256:nothex' });
      expect((await postStatement(last().url, ns, 'prod', bad)).status).toBe(401);

      // Through SSO the same: the old digest is refused, the digest now is recorded with it.
      const viaSso = async (previewDigest: string) =>
        fetch(`${first().url}/v1/pipelines/${ns}/${APP_NAME}/environments/prod/approvals`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            authorization: `Bearer ${await ssoToken()}`,
          },
          body: JSON.stringify({ revision: '6.6.0', decision: 'approve', previewDigest }),
        });
      const stale = await viaSso(seen.digest);
      expect(stale.status).toBe(409);
      expect(((await stale.json()) as { code: string }).code).toBe('PreviewChanged');
      expect(approvals(ns)).toEqual([]);
      expect((await viaSso(now.digest)).status).toBe(202);
      expect(approvals(ns)).toEqual([
        expect.objectContaining({ principal: 'carol', previewDigest: now.digest }),
      ]);
      const malformed = await viaSso('sha256:1234');
      expect(malformed.status).toBe(400);
    },
    PREVIEW_TEST_MS,
  );
});
