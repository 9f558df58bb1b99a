import { describe, expect, it } from 'vitest';
import type { ForgeFailure } from '../../../src/forge/forge-answers.js';
import { forgeClient, pullRequestText, repositoryApi } from '../../../src/forge/forge-client.js';
import type { ForgeClient, RepositoryRef } from '../../../src/forge/forge-model.js';
import type { FetchLike } from '../../../src/outbound/fetch-like.js';

const TOKEN = 'ghp_unit0123456789abcdef';
const github = (url: string): RepositoryRef => ({ kind: 'github', url, baseBranch: 'main' });
const gitlab = (url: string): RepositoryRef => ({ kind: 'gitlab', url, baseBranch: 'main' });

describe('pullRequestText', () => {
  it("writes weave's title and, after one sentence, weave's metadata block byte for byte", () => {
    const { title, body } = pullRequestText('apps', 'podinfo', 'prod', '6.5.0');
    expect(title).toBe('Promote apps/podinfo in prod to 6.5.0');
    const block =
      '<details>\n<summary>metadata</summary>\n!!! DO NOT EDIT !!!\n\napps/podinfo/prod\n</details>';
    expect(body.endsWith(`\n\n${block}`)).toBe(true);
    expect(body.split('\n')[0]).toBe('Sets the values marked for apps/podinfo in prod to 6.5.0.');
  });
});

describe('repositoryApi', () => {
  it.each([
    [github('https://github.com/acme/fleet'), 'https://api.github.com', 'acme/fleet'],
    [github('https://github.com/acme/fleet.git'), 'https://api.github.com', 'acme/fleet'],
    [github('https://ghe.example.com/acme/fleet/'), 'https://ghe.example.com/api/v3', 'acme/fleet'],
    [
      gitlab('https://gitlab.example.com/acme/platform/fleet.git'),
      'https://gitlab.example.com/api/v4',
      'acme/platform/fleet',
    ],
    [gitlab('http://127.0.0.1:8929/acme/fleet'), 'http://127.0.0.1:8929/api/v4', 'acme/fleet'],
  ])('%o -> %s', (repository, apiUrl, fullPath) => {
    expect(repositoryApi(repository)).toEqual({ ok: true, value: { apiUrl, fullPath } });
  });

  it('takes an API URL override, without its trailing slash', () => {
    const api = repositoryApi(github('https://github.com/acme/fleet'), 'https://proxy.test/gh/');
    expect(api).toEqual({
      ok: true,
      value: { apiUrl: 'https://proxy.test/gh', fullPath: 'acme/fleet' },
    });
  });

  it.each([
    [github('git@github.com:acme/fleet.git'), 'is not a URL'],
    [github('ssh://git@github.com/acme/fleet.git'), 'must be http or https'],
    [github('https://bot:s3cret@github.com/acme/fleet'), 'must not hold credentials'],
    [github(`https://${TOKEN}@github.com/acme/fleet`), 'must not hold credentials'],
    [github('https://github.com/acme/fleet?access_token=s3cret'), 'must not have a query'],
    [github('https://github.com/acme'), 'names no repository'],
    [github('https://github.com/acme/fleet/tree/main'), 'names no repository'],
    [github('https://github.com/'), 'names no repository'],
    [gitlab('https://gitlab.com/acme'), 'names no repository'],
    [gitlab('https://gitlab.com/acme//fleet'), 'names no repository'],
  ])('refuses %o as Invalid', (repository, words) => {
    const result = repositoryApi(repository);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.failure).toMatchObject({ reason: 'Invalid', retryable: false });
    expect(result.failure.message).toContain(words);
    expect(result.failure.message).not.toContain('s3cret');
    expect(result.failure.message).not.toContain(TOKEN);
  });

  it('refuses an API URL that is not http(s) or holds credentials', () => {
    for (const apiUrl of ['ftp://proxy.test/api', 'https://u:p@proxy.test/api']) {
      const result = repositoryApi(github('https://github.com/acme/fleet'), apiUrl);
      expect(result).toMatchObject({ ok: false, failure: { reason: 'Invalid' } });
    }
  });
});

/** A client whose fetch records each call and answers with `reply`. */
function recorded(repository: RepositoryRef, reply: () => Response | Promise<Response>) {
  const calls: { url: string; init: RequestInit }[] = [];
  const fetch: FetchLike = (url, init) => {
    calls.push({ url, init });
    return Promise.resolve(reply());
  };
  const client = forgeClient(repository, { token: TOKEN }, { fetch });
  if ('reason' in client) throw new Error(client.message);
  return { client, calls };
}

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

async function failureOf(client: ForgeClient): Promise<ForgeFailure> {
  const result = await client.get(7);
  if (result.ok) throw new Error('expected a failure');
  expect(result.failure.message).not.toContain(TOKEN);
  return result.failure;
}

describe('forgeClient', () => {
  it("calls GitHub's API with the token, its media type and version, and no redirects", async () => {
    const page = 'https://github.com/acme/fleet/pull/7';
    const { client, calls } = recorded(github('https://github.com/acme/fleet'), () =>
      json({ number: 7, html_url: page, state: 'open', merged_at: null }),
    );
    expect(await client.get(7)).toEqual({
      ok: true,
      value: { number: 7, url: page, state: 'open' },
    });
    const [call] = calls;
    expect(call?.url).toBe('https://api.github.com/repos/acme/fleet/pulls/7');
    expect(call?.init).toMatchObject({ method: 'GET', redirect: 'manual' });
    expect(call?.init.headers).toMatchObject({
      authorization: `Bearer ${TOKEN}`,
      accept: 'application/vnd.github+json',
      'x-github-api-version': '2022-11-28',
      'user-agent': 'promotion-gateway',
    });
    expect(call?.init.signal).toBeInstanceOf(AbortSignal);
  });

  it('addresses a GitLab project by its encoded full path, with PRIVATE-TOKEN', async () => {
    const page = 'https://gitlab.example.com/acme/platform/fleet/-/merge_requests/7';
    const { client, calls } = recorded(
      gitlab('https://gitlab.example.com/acme/platform/fleet.git'),
      () => json({ iid: 7, web_url: page, state: 'locked' }),
    );
    expect(await client.get(7)).toEqual({
      ok: true,
      value: { number: 7, url: page, state: 'closed' },
    });
    expect(calls[0]?.url).toBe(
      'https://gitlab.example.com/api/v4/projects/acme%2Fplatform%2Ffleet/merge_requests/7',
    );
    expect(calls[0]?.init.headers).toMatchObject({ 'private-token': TOKEN });
  });

  it('refuses a token with a line break, and an empty base branch', () => {
    const repository = github('https://github.com/acme/fleet');
    expect(forgeClient(repository, { token: `${TOKEN}\n` })).toMatchObject({ reason: 'Invalid' });
    expect(forgeClient({ ...repository, baseBranch: '' }, { token: TOKEN })).toMatchObject({
      reason: 'Invalid',
    });
  });

  it.each([
    ['a body that is not JSON', () => new Response('<html>login</html>', { status: 200 })],
    ['a pull request without html_url', () => json({ number: 7, state: 'open' })],
    [
      'a pull request with a credentialed URL',
      () =>
        json({ number: 7, state: 'open', html_url: 'https://x:y@github.com/acme/fleet/pull/7' }),
    ],
    ['a list where one is expected', () => json([])],
  ])('reads %s as Invalid, not retried', async (_, reply) => {
    const { client } = recorded(github('https://github.com/acme/fleet'), reply);
    expect(await failureOf(client)).toMatchObject({ reason: 'Invalid', retryable: false });
  });

  it('does not follow a redirect', async () => {
    const { client } = recorded(
      github('https://github.com/acme/fleet'),
      () => new Response(null, { status: 302, headers: { location: 'https://elsewhere.test/' } }),
    );
    expect(await failureOf(client)).toMatchObject({ reason: 'Invalid', retryable: false });
  });

  it('reports a network error as Unreachable, retried, without its text', async () => {
    const { client } = recorded(github('https://github.com/acme/fleet'), () => {
      throw new TypeError(`fetch failed for https://api.github.com/?t=${TOKEN}`);
    });
    const failure = await failureOf(client);
    expect(failure).toMatchObject({ reason: 'Unreachable', retryable: true });
    expect(failure.message).not.toContain('api.github.com');
  });

  it('refuses a request number that is not a positive integer without calling', async () => {
    const { client, calls } = recorded(github('https://github.com/acme/fleet'), () => json({}));
    expect(await client.get(0)).toMatchObject({ ok: false, failure: { reason: 'Invalid' } });
    expect(calls).toEqual([]);
  });
});
