/**
 * The pull-request strategy's own decisions, with fakes of its ports: the operator's repository
 * policy, the Secret, what it asks Git and the forge to do, and how their outcomes become the
 * promotion's result. Real Git and forge traffic is covered by the integration tests.
 */
import { describe, expect, it } from 'vitest';
import type { PullRequestSettings } from '../../../src/config/gateway-config.js';
import type { PullRequestStrategySpec } from '../../../src/pipeline/pipeline-resource.js';
import {
  commitMessage,
  promotionBranch,
  pullRequestStrategy,
  type PullRequestPorts,
} from '../../../src/promote/strategies/pull-request/pull-request-strategy.js';
import type {
  ForgeClient,
  PromotionChange,
  PushOutcome,
  PullRequestText,
} from '../../../src/forge/forge-model.js';
import { samplePipeline } from '../../support/pipeline-fixtures.js';

const TOKEN = 'ghp_secretsecretsecret';
const NOW = 1_700_000_000_000;
const SETTINGS: PullRequestSettings = {
  author: { name: 'bot', email: 'bot@example.com' },
  commitMessage: 'Promote {namespace}/{pipeline} in {environment} to {revision}',
  allowedHosts: [],
  allowPlainHttp: false,
  gitTimeoutMs: 1000,
  apiTimeoutMs: 1000,
  attemptTimeoutMs: 60_000,
  refreshIntervalMs: 0,
};
const SPEC: PullRequestStrategySpec = {
  type: 'github',
  url: 'https://github.com/acme/fleet',
  baseBranch: 'main',
  secretRef: { name: 'forge' },
};
const ctx = { pipeline: samplePipeline(), environment: 'prod', revision: '6.6.0', attempt: 1 };

/** Ports with a Secret holding TOKEN, a pusher answering `push` and a forge answering `open`. */
function ports(options: {
  push?: PushOutcome;
  open?: Awaited<ReturnType<ForgeClient['openOrUpdate']>>;
  secret?: Record<string, string>;
  settings?: Partial<PullRequestSettings>;
}) {
  const calls = { pushes: [] as PromotionChange[], opens: [] as [string, PullRequestText][] };
  const secret = options.secret ?? { token: `${TOKEN}\n` };
  const forge: ForgeClient = {
    openOrUpdate: (branch, text) => {
      calls.opens.push([branch, text]);
      return Promise.resolve(
        options.open ?? {
          ok: true,
          value: {
            request: { number: 7, url: 'https://github.com/acme/fleet/pull/7', state: 'open' },
            created: true,
          },
        },
      );
    },
    get: () => Promise.reject(new Error('not used')),
  };
  const value: PullRequestPorts = {
    readSecret: (_ns, _name, key) =>
      Promise.resolve(secret[key] === undefined ? undefined : Buffer.from(secret[key])),
    pusher: {
      push: (change) => {
        calls.pushes.push(change);
        return Promise.resolve(
          options.push ?? {
            outcome: 'Pushed',
            commit: 'c1',
            base: 'b1',
            files: ['a.yaml', 'b.yaml'],
          },
        );
      },
    },
    forge: () => forge,
    text: (ns, name, env, rev) => ({
      title: `Promote ${ns}/${name} in ${env} to ${rev}`,
      body: 'b',
    }),
    settings: { ...SETTINGS, ...options.settings },
    now: () => NOW,
  };
  return { value, calls };
}

describe('the pull-request strategy', () => {
  it("pushes the environment's branch with its marker, then opens the request", async () => {
    const { value, calls } = ports({});
    const result = await pullRequestStrategy(SPEC, value).run(ctx);
    expect(result).toEqual({
      ok: true,
      message: 'opened pull request #7 setting 6.6.0 in 2 files',
      details: { pullRequest: { url: 'https://github.com/acme/fleet/pull/7', state: 'open' } },
    });
    expect(calls.pushes[0]).toMatchObject({
      branch: 'promotion-flux-system-podinfo-prod',
      marker: 'flux-system:podinfo:prod',
      revision: '6.6.0',
      credentials: { token: TOKEN },
      author: SETTINGS.author,
      message: 'Promote flux-system/podinfo in prod to 6.6.0',
      now: NOW,
      repository: { kind: 'github', url: SPEC.url, baseBranch: 'main' },
    });
    expect(calls.opens[0]?.[0]).toBe(promotionBranch('flux-system', 'podinfo', 'prod'));
  });

  it('says "updated" for a request that was open already, and opens none when Git already holds the revision', async () => {
    const updated = ports({
      open: {
        ok: true,
        value: { request: { number: 3, url: 'u', state: 'open' }, created: false },
      },
    });
    expect((await pullRequestStrategy(SPEC, updated.value).run(ctx)).message).toMatch(
      /^updated pull request #3/,
    );
    const nothing = ports({ push: { outcome: 'AlreadyAtRevision', base: 'b1' } });
    const result = await pullRequestStrategy(SPEC, nothing.value).run(ctx);
    expect(result).toMatchObject({
      ok: true,
      message: 'main already holds 6.6.0 for prod: nothing to propose',
    });
    expect(result.ok && result.details).toBeFalsy();
    expect(nothing.calls.opens).toHaveLength(0);
  });

  it("passes Git's and the forge's failures on, with the forge's wait as retryNotBefore", async () => {
    const limited = ports({
      open: {
        ok: false,
        failure: {
          reason: 'RateLimited',
          message: 'slow down',
          retryable: true,
          retryAfterMs: 30_000,
        },
      },
    });
    expect(await pullRequestStrategy(SPEC, limited.value).run(ctx)).toEqual({
      ok: false,
      reason: 'RateLimited',
      message: 'slow down',
      retryable: true,
      retryNotBefore: NOW + 30_000,
    });
    const protectedBranch = ports({
      push: {
        outcome: 'Failed',
        failure: { reason: 'BranchProtected', message: 'no', retryable: false },
      },
    });
    expect(await pullRequestStrategy(SPEC, protectedBranch.value).run(ctx)).toMatchObject({
      ok: false,
      reason: 'BranchProtected',
      retryable: false,
    });
    expect(protectedBranch.calls.opens).toHaveLength(0);
  });

  it.each([
    [{ type: 'bitbucket-server' as const }, {}, 'StrategyNotSupported'],
    [{ url: 'http://github.com/acme/fleet' }, {}, 'RepositoryNotAllowed'],
    [{ url: 'https://x:y@github.com/acme/fleet' }, {}, 'Invalid'],
    [{ url: 'not a url' }, {}, 'Invalid'],
    [{}, { allowedHosts: ['gitlab.example.com'] }, 'RepositoryNotAllowed'],
  ])('refuses %j (settings %j) before reading the Secret: %s', async (change, settings, reason) => {
    let reads = 0;
    const { value, calls } = ports({ settings });
    const counted = { ...value, readSecret: () => ((reads += 1), Promise.resolve(undefined)) };
    const result = await pullRequestStrategy({ ...SPEC, ...change }, counted).run(ctx);
    expect(result).toMatchObject({ ok: false, reason, retryable: false });
    expect(reads).toBe(0);
    expect(calls.pushes).toHaveLength(0);
  });

  it('accepts plain http and listed hosts when the operator allows them', async () => {
    const { value } = ports({
      settings: { allowPlainHttp: true, allowedHosts: ['127.0.0.1:8080'] },
    });
    const result = await pullRequestStrategy(
      { ...SPEC, url: 'http://127.0.0.1:8080/acme/fleet' },
      value,
    ).run(ctx);
    expect(result.ok).toBe(true);
  });

  it('names a missing token without its contents, and uses username/password for Git when set', async () => {
    const missing = ports({ secret: { username: 'u' } });
    const result = await pullRequestStrategy(SPEC, missing.value).run(ctx);
    expect(result).toMatchObject({ ok: false, reason: 'CredentialsNotFound', retryable: true });
    expect(result.message).toContain('flux-system/forge');
    const basic = ports({ secret: { token: TOKEN, username: 'git', password: 'pw' } });
    await pullRequestStrategy(SPEC, basic.value).run(ctx);
    expect(basic.calls.pushes[0]?.credentials).toEqual({
      token: TOKEN,
      username: 'git',
      password: 'pw',
    });
  });

  it('turns an unreadable Secret into a retryable failure that quotes nothing', async () => {
    const { value } = ports({});
    const failing = { ...value, readSecret: () => Promise.reject(new Error(`boom ${TOKEN}`)) };
    const result = await pullRequestStrategy(SPEC, failing).run(ctx);
    expect(result).toMatchObject({ ok: false, reason: 'CredentialsUnreadable', retryable: true });
    expect(JSON.stringify(result)).not.toContain(TOKEN);
  });

  it('fills every placeholder of the configured commit message, and only those', () => {
    const message = commitMessage(
      'chore({environment}): {pipeline} {revision} [{namespace}] {revision} {other}',
      'apps',
      'podinfo',
      { environment: 'prod', revision: '6.6.0' },
    );
    expect(message).toBe('chore(prod): podinfo 6.6.0 [apps] 6.6.0 {other}');
  });

  it('commits with the configured message', async () => {
    const { value, calls } = ports({
      settings: { commitMessage: 'deploy {revision} to {environment}' },
    });
    await pullRequestStrategy(SPEC, value).run(ctx);
    expect(calls.pushes[0]?.message).toBe('deploy 6.6.0 to prod');
  });
});

describe("a train's shared pull request", () => {
  const sharedPullRequest = {
    train: 'flux-system/release',
    digest: `sha256:${'c'.repeat(64)}`,
    members: { podinfo: '6.6.0', api: '2.0.0', web: '5.0.0' },
  };

  it("pushes every member's marker to the train's branch, and opens one request for them", async () => {
    const { value, calls } = ports({});
    const result = await pullRequestStrategy(SPEC, value).run({ ...ctx, sharedPullRequest });
    expect(result).toMatchObject({ ok: true, details: { pullRequest: { state: 'open' } } });
    const branch = `promotion-train-flux-system-release-prod-${'c'.repeat(12)}`;
    expect(calls.pushes[0]).toMatchObject({
      branch,
      marker: 'flux-system:podinfo:prod',
      revision: '6.6.0',
      also: [
        { marker: 'flux-system:api:prod', revision: '2.0.0' },
        { marker: 'flux-system:web:prod', revision: '5.0.0' },
      ],
      message: `Promote train flux-system/release in prod (${'c'.repeat(12)})`,
    });
    const [opened, text] = calls.opens[0] ?? [];
    expect(opened).toBe(branch);
    expect(text?.title).toBe(calls.pushes[0]?.message);
    expect(text?.body).toContain(sharedPullRequest.digest);
    expect(text?.body).toContain('- flux-system/api: 2.0.0');
  });

  it('is the same change from every member: one branch, one set of markers', async () => {
    const a = ports({});
    const b = ports({});
    await pullRequestStrategy(SPEC, a.value).run({ ...ctx, sharedPullRequest });
    const web = { ...ctx.pipeline, metadata: { ...ctx.pipeline.metadata, name: 'web' } };
    await pullRequestStrategy(SPEC, b.value).run({
      ...ctx,
      pipeline: web,
      revision: '5.0.0',
      sharedPullRequest,
    });
    const markers = (c: PromotionChange | undefined) =>
      [[c?.marker, c?.revision], ...(c?.also ?? []).map((o) => [o.marker, o.revision])].sort();
    expect(b.calls.pushes[0]?.branch).toBe(a.calls.pushes[0]?.branch);
    expect(markers(b.calls.pushes[0])).toEqual(markers(a.calls.pushes[0]));
    expect(b.calls.opens[0]).toEqual(a.calls.opens[0]);
  });
});
