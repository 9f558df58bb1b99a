/**
 * A train's members on the pull-request strategy with one repository and base branch share one
 * pull request, on kube-sim and forge-sim, with one gateway and with two replicas: api and web
 * (same repository) are proposed in exactly one request on a branch named for the train, the
 * environment and the combination's digest, carrying both files' changes, each member's record
 * pointing to it; worker (another repository) gets its own; merging the shared request completes
 * both members, and the release succeeds. While such a release waits for approvals, each sharing
 * member's preview is the shared request: its branch, both members' files.
 */
import { startForge, type ForgeHandle } from 'forge-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EnvironmentStatus, StrategySpec } from '../../src/pipeline/pipeline-resource.js';
import { combinationDigest } from '../../src/trains/combination-digest.js';
import {
  eventually,
  launchGateway,
  PIPELINE_API,
  startTestFleet,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';
import type { Preview } from '../../src/preview/previewer.js';
import { readTokens, type ReadTokens } from '../support/preview.js';
import { TOKEN_SECRET } from '../support/pull-request.js';
import { applyTrain, createTrainApps, rollApp, trainStatus } from '../support/train-rig.js';

const APPS = ['api', 'web', 'worker'] as const;
const WAIT = { timeoutMs: 30_000 };
const PROMOTION = {
  pullRequest: { allowPlainHttp: true, refreshIntervalMs: 0 },
  retry: { maxAttempts: 3, backoffBaseMs: 100, backoffMaxMs: 1000 },
};

/** `app`'s prod values file, marked for the train member `app` of `ns`. */
function valuesFile(ns: string, app: string, version: string): string {
  return `app: ${app}\nversion: "${version}" # {"$promotion": "${ns}:${app}:prod"}\n`;
}

describe.each([1, 2])('a train sharing one pull request with %i replica(s)', (count) => {
  let fleet: TestFleet;
  let forge: ForgeHandle;
  let replicas: RunningGateway[];
  let tokens: ReadTokens;

  beforeAll(async () => {
    [fleet, forge, tokens] = await Promise.all([
      startTestFleet(),
      startForge({ kind: 'github' }),
      readTokens(),
    ]);
    replicas = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        launchGateway(fleet, {
          instanceId: `shared-pr-${String(i)}`,
          config: { promotion: PROMOTION, jwt: tokens.config },
        }),
      ),
    );
  });
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.close()));
    await Promise.all([forge.close(), fleet.close()]);
  });

  async function resync(): Promise<void> {
    await Promise.all(replicas.map((r) => r.gateway.resync()));
  }

  function prodOf(ns: string, app: string): EnvironmentStatus | undefined {
    const object = fleet.management.get(PIPELINE_API, 'Pipeline', ns, app) as
      { status?: { environments?: Record<string, EnvironmentStatus> } } | undefined;
    return object?.status?.environments?.prod;
  }

  const release = (ns: string) =>
    trainStatus(fleet, ns, 'release')?.environments?.find((e) => e.name === 'prod')?.release;

  /** The Secret with the forge token, and a strategy proposing into `repo`. */
  function strategyFor(repo: string): StrategySpec {
    return {
      'pull-request': {
        type: 'github',
        url: `${forge.url}/${repo}`,
        baseBranch: 'main',
        secretRef: { name: TOKEN_SECRET },
      },
    };
  }

  /** A shared repository for api and web, with prod at 6.5.0, and the forge token's Secret. */
  async function sharedRepository(ns: string): Promise<string> {
    const shared = `acme/${ns}`;
    await forge.createRepo(shared, {
      'envs/prod/api.yaml': valuesFile(ns, 'api', '6.5.0'),
      'envs/prod/web.yaml': valuesFile(ns, 'web', '6.5.0'),
    });
    fleet.management.ensureNamespace(ns);
    fleet.management.apply({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: TOKEN_SECRET, namespace: ns },
      type: 'Opaque',
      data: { token: Buffer.from(forge.addToken(`promoter-${ns}`)).toString('base64') },
    });
    return shared;
  }

  it('opens one pull request for api and web, and one of its own for worker', async () => {
    const ns = `train-pr-${String(count)}`;
    const shared = await sharedRepository(ns);
    const own = `acme/${ns}-worker`;
    await forge.createRepo(own, { 'envs/prod/worker.yaml': valuesFile(ns, 'worker', '6.5.0') });
    createTrainApps(
      fleet,
      ns,
      APPS,
      {},
      {
        api: strategyFor(shared),
        web: strategyFor(shared),
        worker: strategyFor(own),
      },
    );
    applyTrain(fleet, ns, 'release', {
      members: [{ name: 'api' }, { name: 'web' }, { name: 'worker' }],
      environments: ['prod'],
    });
    await resync();
    await eventually(() => {
      expect(release(ns)).toMatchObject({ state: 'Succeeded' });
    }, WAIT);

    for (const env of ['dev', 'staging'])
      for (const app of APPS) rollApp(fleet, ns, env, app, '6.6.0');
    await resync();
    const digest = combinationDigest({ api: '6.6.0', web: '6.6.0', worker: '6.6.0' });
    await eventually(() => {
      for (const app of APPS)
        expect(prodOf(ns, app)?.promotion?.pullRequest).toMatchObject({ state: 'open' });
    }, WAIT);
    for (let i = 0; i < 2; i++) await resync();
    await Promise.all(replicas.map((r) => r.gateway.idle()));

    // Exactly one request in the shared repository, on the train's branch, both files changed.
    const requests = forge.pullRequests(shared);
    expect(requests).toHaveLength(1);
    const [request] = requests;
    const branch = `promotion-train-${ns}-release-prod-${digest.slice(7, 19)}`;
    expect(request).toMatchObject({ head: branch, base: 'main', state: 'open' });
    expect(request?.title).toBe(`Promote train ${ns}/release in prod (${digest.slice(7, 19)})`);
    expect(request?.body).toContain(digest);
    expect(await forge.readFile(shared, branch, 'envs/prod/api.yaml')).toBe(
      valuesFile(ns, 'api', '6.6.0'),
    );
    expect(await forge.readFile(shared, branch, 'envs/prod/web.yaml')).toBe(
      valuesFile(ns, 'web', '6.6.0'),
    );
    const api = prodOf(ns, 'api')?.promotion?.pullRequest?.url;
    expect(api).toMatch(new RegExp(`/${shared}/pull/${String(request?.number)}$`));
    expect(prodOf(ns, 'web')?.promotion?.pullRequest?.url).toBe(api);
    // worker's repository gets a request of its own, on its own branch.
    expect(forge.pullRequests(own)).toEqual([
      expect.objectContaining({ head: `promotion-${ns}-worker-prod`, state: 'open' }),
    ]);
    expect(prodOf(ns, 'worker')?.promotion?.pullRequest?.url).not.toBe(api);

    // Merging the shared request completes api and web; worker's merge completes the release.
    await forge.merge(shared, request?.number ?? 0);
    await resync();
    await eventually(() => {
      for (const app of ['api', 'web'])
        expect(prodOf(ns, app)?.promotion).toMatchObject({
          revision: '6.6.0',
          phase: 'Succeeded',
          pullRequest: { url: api, state: 'merged' },
        });
    }, WAIT);
    const [workerRequest] = forge.pullRequests(own);
    await forge.merge(own, workerRequest?.number ?? 0);
    for (const app of APPS) rollApp(fleet, ns, 'prod', app, '6.6.0');
    await resync();
    await eventually(() => {
      expect(release(ns)).toMatchObject({ digest, state: 'Succeeded' });
    }, WAIT);
    expect(forge.pullRequests(shared)).toHaveLength(1);
  }, 120_000);

  it("previews the shared request, both members' files, while the release waits", async () => {
    const ns = `train-pr-preview-${String(count)}`;
    const shared = await sharedRepository(ns);
    const members = ['api', 'web'] as const;
    createTrainApps(
      fleet,
      ns,
      members,
      { approval: { minApprovals: 1 } },
      { api: strategyFor(shared), web: strategyFor(shared) },
    );
    applyTrain(fleet, ns, 'release', {
      members: [{ name: 'api' }, { name: 'web' }],
      environments: ['prod'],
    });
    await resync();
    for (const env of ['dev', 'staging'])
      for (const app of members) rollApp(fleet, ns, env, app, '6.6.0');
    await resync();
    const digest = combinationDigest({ api: '6.6.0', web: '6.6.0' });
    await eventually(() => {
      expect(release(ns)).toMatchObject({ digest, state: 'Waiting', reason: 'MemberGates' });
    }, WAIT);

    const token = await tokens.token([`${ns}/*`]);
    const branch = `promotion-train-${ns}-release-prod-${digest.slice(7, 19)}`;
    for (const replica of replicas)
      for (const app of members) {
        const preview = await eventually(async () => {
          await resync();
          const res = await fetch(
            `${replica.url}/v1/pipelines/${ns}/${app}/environments/prod/preview`,
            { headers: { authorization: `Bearer ${token}` } },
          );
          expect(res.status).toBe(200);
          const answer = (await res.json()) as Preview;
          expect(answer.change).toMatchObject({ kind: 'pull-request', branch });
          return answer;
        }, WAIT);
        const files = preview.change.kind === 'pull-request' ? preview.change.files : [];
        expect(files.map((f) => f.path).sort()).toEqual([
          'envs/prod/api.yaml',
          'envs/prod/web.yaml',
        ]);
        expect(preview.summary).toContain('2 files');
      }
    // Nothing was proposed: the preview is only what the request will be.
    expect(forge.pullRequests(shared)).toEqual([]);
  }, 120_000);
});
