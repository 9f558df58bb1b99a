/**
 * A rollback through the pull-request strategy, on the real gateway, kube-sim and the simulated
 * GitHub: prod promoted to 6.6.0 by a merged request, a person asks to roll it back, and the
 * gateway opens one request setting the marked values back to 6.5.0; once merged and applied,
 * the rollback is recorded as succeeded and 6.6.0 is held.
 */
import { startForge, type ForgeHandle } from 'forge-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIssuer, type TestIssuer } from '../support/authorizations.js';
import {
  createApp,
  eventually,
  launchGateway,
  pipelineOf,
  rollOut,
  startTestFleet,
  waitSteady,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';
import {
  fluxAppliesProd,
  prepareRepository,
  promotedFiles,
  repoName,
  repositoryFiles,
} from '../support/pull-request.js';
import { holdsOf, recordAt, requestRollback, verifiedAt } from '../support/rollback-harness.js';

const AUDIENCE = 'promotion-gateway';

let fleet: TestFleet;
let forge: ForgeHandle;
let sso: TestIssuer;
let gw: RunningGateway;

beforeAll(async () => {
  [fleet, forge, sso] = await Promise.all([
    startTestFleet(),
    startForge({ kind: 'github' }),
    startIssuer('https://sso.example.com'),
  ]);
  gw = await launchGateway(fleet, {
    config: {
      promotion: { pullRequest: { allowPlainHttp: true, refreshIntervalMs: 0 } },
      approvals: {
        approvers: [{ name: 'bob', oidcSubjects: [`${sso.issuer}#bob-sub`], groups: [] }],
        oidc: { issuer: sso.issuer, audience: AUDIENCE, jwksUrl: sso.jwksUrl },
      },
    },
  });
});
afterAll(async () => {
  await gw.close();
  await Promise.all([forge.close(), sso.close()]);
  await fleet.close();
});

describe('a rollback by pull request', () => {
  it('opens one request setting prod back to 6.5.0, recorded as succeeded once merged', async () => {
    const ns = 'pr-rollback';
    const repo = repoName('github', ns);
    const token = forge.addToken('promoter');
    const prodStrategy = await prepareRepository(fleet, forge, ns, {
      repo,
      token,
      version: '6.5.0',
    });
    createApp(fleet, ns, { prodStrategy });
    await waitSteady(fleet, [gw], ns);
    await verifiedAt(fleet, ns, 'prod', '6.5.0');
    rollOut(fleet.dev, ns, '6.6.0');
    rollOut(fleet.staging, ns, '6.6.0');
    await gw.gateway.resync();
    await recordAt(fleet, ns, 'prod', '6.6.0');
    const [promotion] = forge.pullRequests(repo);
    await forge.merge(repo, promotion?.number ?? 0);
    expect(await fluxAppliesProd(fleet, forge, repo, ns)).toBe('6.6.0');
    await gw.gateway.resync();
    await verifiedAt(fleet, ns, 'prod', '6.6.0');

    const bob = await sso.token({ sub: 'bob-sub' });
    const res = await requestRollback(gw, ns, 'prod', bob, { reason: 'errors up' });
    expect(res.status).toBe(202);
    const opened = await recordAt(fleet, ns, 'prod', '6.5.0');
    expect(opened.pullRequest?.state).toBe('open');
    expect(opened.rollback).toMatchObject({ from: '6.6.0', by: ['bob'] });
    const requests = forge.pullRequests(repo);
    expect(requests).toHaveLength(2);
    const rollback = requests.find((r) => r.state === 'open');
    expect(rollback?.title).toContain('6.5.0');
    const wanted = promotedFiles(repositoryFiles(ns, '6.5.0'), ns, '6.5.0', '6.5.0');
    expect(await forge.readFile(repo, rollback?.head ?? '', 'envs/prod/image.yml')).toBe(
      wanted['envs/prod/image.yml'],
    );

    await forge.merge(repo, rollback?.number ?? 0);
    expect(await fluxAppliesProd(fleet, forge, repo, ns)).toBe('6.5.0');
    await gw.gateway.resync();
    await eventually(() => {
      const entry = pipelineOf(fleet, ns).status?.environments?.prod?.history?.at(-1);
      expect(entry).toMatchObject({ revision: '6.5.0', rollback: { from: '6.6.0' } });
      expect(entry?.succeededTime).toBeDefined();
    });
    expect(holdsOf(fleet, ns, 'prod')).toEqual([
      expect.objectContaining({ revision: '6.6.0', reason: 'RolledBack' }),
    ]);
    await gw.gateway.idle();
    expect(forge.pullRequests(repo)).toHaveLength(2);
  }, 90_000);
});
