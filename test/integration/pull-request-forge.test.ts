/**
 * The pull-request strategy's forge client against forge-sim, for GitHub (GitHub Enterprise
 * style, under /api/v3) and GitLab (a nested group): open, update, races, states, and every
 * failure the forges answer, classified and free of the token.
 */
import type { FaultSpec, ForgeHandle } from 'forge-sim';
import { startForge } from 'forge-sim';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ForgeFailure } from '../../src/forge/forge-answers.js';
import type { ForgeClientOptions } from '../../src/forge/forge-client.js';
import { forgeClient, pullRequestText, repositoryApi } from '../../src/forge/forge-client.js';
import type { ForgeClient, ForgeResult, RepositoryRef } from '../../src/forge/forge-model.js';
import type { FetchLike } from '../../src/outbound/fetch-like.js';

interface RateLimitCase {
  name: string;
  fault: NonNullable<FaultSpec['rateLimit']>;
  status: number;
  waitMs: [number, number];
}

const CASES = [
  {
    kind: 'github',
    repo: 'acme/fleet',
    readOnly: ['pull_requests:read'],
    rateLimits: [
      { name: 'primary', fault: { count: 1 }, status: 403, waitMs: [55_000, 60_000] },
      {
        name: 'secondary',
        fault: { count: 1, style: 'secondary', retryAfterSeconds: 30 },
        status: 429,
        waitMs: [30_000, 30_000],
      },
    ] as RateLimitCase[],
  },
  {
    kind: 'gitlab',
    repo: 'acme/platform/fleet',
    readOnly: ['read_api'],
    rateLimits: [
      { name: 'default', fault: { count: 1 }, status: 429, waitMs: [60_000, 60_000] },
      {
        name: 'retry-after 30',
        fault: { count: 1, retryAfterSeconds: 30 },
        status: 429,
        waitMs: [30_000, 30_000],
      },
    ] as RateLimitCase[],
  },
] as const;

describe.each(CASES)('the $kind forge client', ({ kind, repo, readOnly, rateLimits }) => {
  let forge: ForgeHandle;
  let token: string;
  let branches = 0;
  /** Every failure seen, checked at the end for the tokens. */
  const failures: ForgeFailure[] = [];
  const tokens: string[] = [];
  const text = pullRequestText('apps', 'podinfo', 'dev', '6.5.0');

  beforeAll(async () => {
    forge = await startForge({ kind });
    await forge.createRepo(repo, { 'envs/dev/podinfo.yaml': 'tag: 6.4.0\n' });
    token = forge.addToken('promoter');
    tokens.push(token);
  });
  afterAll(() => forge.close());
  afterEach(() => {
    forge.faults.clear();
  });

  const repository = (path: string = repo): RepositoryRef => ({
    kind,
    url: `${forge.url}/${path}`,
    baseBranch: 'main',
  });
  const client = (
    options: ForgeClientOptions = {},
    secret = token,
    path: string = repo,
  ): ForgeClient => {
    const made = forgeClient(repository(path), { token: secret }, options);
    if ('reason' in made) throw new Error(made.message);
    return made;
  };
  /** A promotion branch one commit ahead of main, as the Git side leaves it. */
  const promotionBranch = async (): Promise<string> => {
    branches += 1;
    const branch = `promotion-apps-podinfo-dev-${String(branches)}`;
    await forge.commit(repo, branch, { 'envs/dev/podinfo.yaml': 'tag: 6.5.0\n' }, 'promote');
    return branch;
  };
  const openFor = (branch: string) =>
    forge.pullRequests(repo).filter((p) => p.head === branch && p.state === 'open');
  const value = <T>(result: ForgeResult<T>): T => {
    if (!result.ok) throw new Error(`unexpected failure: ${result.failure.message}`);
    return result.value;
  };
  const failure = <T>(result: ForgeResult<T>): ForgeFailure => {
    if (result.ok) throw new Error('expected a failure');
    failures.push(result.failure);
    return result.failure;
  };

  it("derives the forge's API root from the repository URL alone", () => {
    for (const url of [`${forge.url}/${repo}`, `${forge.url}/${repo}.git`]) {
      const api = repositoryApi({ kind, url, baseBranch: 'main' });
      expect(api).toEqual({ ok: true, value: { apiUrl: forge.apiUrl, fullPath: repo } });
    }
  });

  it("opens a request from the branch into the base, with weave's title and body", async () => {
    const branch = await promotionBranch();
    const { request, created } = value(await client().openOrUpdate(branch, text));
    expect(created).toBe(true);
    expect(request.state).toBe('open');
    expect(request.url.startsWith(`${forge.url}/${repo}/`)).toBe(true);
    const [pull, ...others] = openFor(branch);
    expect(others).toEqual([]);
    expect(pull).toMatchObject({
      number: request.number,
      title: 'Promote apps/podinfo in dev to 6.5.0',
      body: text.body,
      head: branch,
      base: 'main',
    });
  });

  it('updates the open request of the branch instead of opening another', async () => {
    const branch = await promotionBranch();
    const first = value(await client().openOrUpdate(branch, text));
    const newer = pullRequestText('apps', 'podinfo', 'dev', '6.5.1');
    const second = value(await client().openOrUpdate(branch, newer));
    expect(second).toEqual({ request: first.request, created: false });
    expect(openFor(branch).map((p) => [p.number, p.title])).toEqual([
      [first.request.number, newer.title],
    ]);
  });

  it('opens a new request once the previous one was closed', async () => {
    const branch = await promotionBranch();
    const first = value(await client().openOrUpdate(branch, text));
    await forge.close(repo, first.request.number);
    const second = value(await client().openOrUpdate(branch, text));
    expect(second.created).toBe(true);
    expect(second.request.number).not.toBe(first.request.number);
    expect(openFor(branch).map((p) => p.number)).toEqual([second.request.number]);
  });

  it('updates, not duplicates, a request someone opened between its list and its create', async () => {
    const branch = await promotionBranch();
    let raced = false;
    const racing: FetchLike = async (url, init) => {
      if (init.method === 'POST' && !raced && typeof init.body === 'string') {
        raced = true;
        const theirs = { ...(JSON.parse(init.body) as object), title: 'opened by another replica' };
        await fetch(url, { ...init, body: JSON.stringify(theirs) });
      }
      return fetch(url, init);
    };
    const result = value(await client({ fetch: racing }).openOrUpdate(branch, text));
    expect(raced).toBe(true);
    expect(result.created).toBe(false);
    expect(openFor(branch).map((p) => [p.number, p.title])).toEqual([
      [result.request.number, text.title],
    ]);
  });

  it('reports open, then merged after a merge, and closed after a close', async () => {
    const merging = value(await client().openOrUpdate(await promotionBranch(), text)).request;
    const closing = value(await client().openOrUpdate(await promotionBranch(), text)).request;
    expect(value(await client().get(merging.number))).toEqual(merging);
    await forge.merge(repo, merging.number);
    expect(value(await client().get(merging.number))).toEqual({ ...merging, state: 'merged' });
    await forge.close(repo, closing.number);
    expect(value(await client().get(closing.number))).toEqual({ ...closing, state: 'closed' });
  });

  it('refuses a revoked token as Unauthorized, not retried', async () => {
    const revoked = forge.addToken('former');
    tokens.push(revoked);
    forge.revoke(revoked);
    const refused = failure(await client({}, revoked).openOrUpdate('any', text));
    expect(refused).toMatchObject({ reason: 'Unauthorized', retryable: false });
  });

  it('refuses a token that may only read requests as Forbidden', async () => {
    const reader = forge.addToken('reader', [...readOnly]);
    tokens.push(reader);
    const branch = await promotionBranch();
    const refused = failure(await client({}, reader).openOrUpdate(branch, text));
    expect(refused).toMatchObject({ reason: 'Forbidden', retryable: false });
    expect(openFor(branch)).toEqual([]);
  });

  it('reports a missing repository as NotFound', async () => {
    const missing = repo.replace(/fleet$/, 'missing');
    const refused = failure(await client({}, token, missing).openOrUpdate('any', text));
    expect(refused).toMatchObject({ reason: 'NotFound', retryable: false });
  });

  it.each(rateLimits)('waits as long as a $name rate limit asks', async (limit) => {
    const { request } = value(await client().openOrUpdate(await promotionBranch(), text));
    forge.faults.set({ rateLimit: limit.fault });
    const limited = failure(await client().get(request.number));
    expect(limited).toMatchObject({ reason: 'RateLimited', retryable: true });
    expect(limited.message).toContain(`HTTP ${String(limit.status)}`);
    expect(limited.retryAfterMs).toBeGreaterThanOrEqual(limit.waitMs[0]);
    expect(limited.retryAfterMs).toBeLessThanOrEqual(limit.waitMs[1]);
  });

  it('retries a 503 as ForgeUnavailable', async () => {
    forge.faults.set({ errors: [{ code: 503, count: 1 }] });
    const unavailable = failure(await client().openOrUpdate(await promotionBranch(), text));
    expect(unavailable).toMatchObject({ reason: 'ForgeUnavailable', retryable: true });
    expect(unavailable.message).toContain('HTTP 503');
  });

  it('gives up on a hung request after timeoutMs, as a retryable Timeout', async () => {
    // The forge holds every request: only the client's own timeout can end this one.
    forge.faults.set({ hang: {} });
    const timedOut = failure(await client({ timeoutMs: 200 }).get(1));
    expect(timedOut).toMatchObject({ reason: 'Timeout', retryable: true });
  });

  it('never writes a token or a forge URL into a failure message', () => {
    expect(failures.length).toBeGreaterThanOrEqual(7);
    for (const { message } of failures) {
      for (const secret of tokens) expect(message).not.toContain(secret);
      expect(message).not.toContain(forge.url);
    }
  });
});
