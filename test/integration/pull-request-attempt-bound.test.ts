/**
 * The request counts behind the configuration's bound on one pull-request attempt
 * (src/config/claim-timeout.ts), measured against the simulated forges: the longest Git path
 * (the promotion branch exists and the base moved on) makes PULL_REQUEST_GIT_REQUESTS requests,
 * and opening a request after losing the creation race makes PULL_REQUEST_API_CALLS forge
 * calls. Should the strategy ever make more, the claim timeout check would be too lenient.
 */
import { startForge, type ForgeHandle, type ForgeKind } from 'forge-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PULL_REQUEST_API_CALLS,
  PULL_REQUEST_GIT_REQUESTS,
} from '../../src/config/claim-timeout.js';
import {
  forgeClient,
  pullRequestText,
} from '../../src/promote/strategies/pull-request/forge-client.js';
import { gitPusher } from '../../src/promote/strategies/pull-request/git-push.js';
import type { PromotionChange } from '../../src/promote/strategies/pull-request/forge-model.js';
import type { FetchLike } from '../../src/promote/strategies/webhook.js';

const MARKER = 'apps:podinfo:dev';
const BRANCH = 'promotion-apps-podinfo-dev';

describe.each<{ kind: ForgeKind; repo: string }>([
  { kind: 'github', repo: 'acme/fleet' },
  { kind: 'gitlab', repo: 'acme/platform/fleet' },
])('one pull-request attempt on $kind', ({ kind, repo }) => {
  let forge: ForgeHandle;
  let token: string;

  beforeAll(async () => {
    forge = await startForge({ kind });
    token = forge.addToken('promoter');
    await forge.createRepo(repo, { 'podinfo.yaml': `tag: 6.5.0 # {"$promotion": "${MARKER}"}\n` });
  });
  afterAll(() => forge.close());

  const repository = () => ({ kind, url: forge.cloneUrl(repo), baseBranch: 'main' });
  function change(revision: string): PromotionChange {
    return {
      repository: repository(),
      credentials: { token },
      branch: BRANCH,
      marker: MARKER,
      revision,
      author: { name: 'Promotion Bot', email: 'bot@example.com' },
      message: `Promote to ${revision}`,
      now: Date.now(),
    };
  }

  it(`makes at most ${String(PULL_REQUEST_GIT_REQUESTS)} Git requests, that many on the longest path`, async () => {
    const requests: string[] = [];
    const counting: typeof fetch = (input, init) => {
      requests.push(init?.method ?? 'GET');
      return fetch(input, init);
    };
    const pusher = gitPusher({ fetch: counting });
    expect((await pusher.push(change('6.6.0'))).outcome).toBe('Pushed');
    const first = requests.splice(0).length;
    // The branch now exists and the base moves on: both fetches run in full, then the push.
    await forge.commit(repo, 'main', { 'README.md': 'hotfix\n' }, 'Hotfix');
    expect((await pusher.push(change('6.7.0'))).outcome).toBe('Pushed');
    expect(first).toBeLessThan(PULL_REQUEST_GIT_REQUESTS);
    expect(requests).toHaveLength(PULL_REQUEST_GIT_REQUESTS);
  });

  it(`makes ${String(PULL_REQUEST_API_CALLS)} forge calls when another replica opened the request first`, async () => {
    const calls: string[] = [];
    let raced = false;
    const racing: FetchLike = async (url, init) => {
      calls.push(`${init.method ?? 'GET'} ${url}`);
      if (init.method === 'POST' && !raced) {
        raced = true;
        await fetch(url, init); // the other replica's create lands first
      }
      return fetch(url, init);
    };
    await forge.commit(repo, 'promotion-raced', { 'podinfo.yaml': 'tag: 6.6.0\n' }, 'promote');
    const client = forgeClient(repository(), { token }, { fetch: racing });
    if ('reason' in client) throw new Error(client.message);
    const text = pullRequestText('apps', 'podinfo', 'dev', '6.6.0');
    const opened = await client.openOrUpdate('promotion-raced', text);
    expect(opened).toMatchObject({ ok: true, value: { created: false } });
    expect(raced).toBe(true);
    expect(calls).toHaveLength(PULL_REQUEST_API_CALLS);
  });
});
