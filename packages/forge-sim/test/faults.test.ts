/**
 * Fault injection and request accounting: rate limits with each forge's own status, headers and
 * body (GitHub's checked against its OpenAPI description, GitLab's against the recorded docs),
 * errors on REST and on Git, latency through the injected sleep, hangs, the counters, and the
 * same switches through the /_forge admin routes.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ForgeHandle } from '../src/index.js';
import { startForge } from '../src/index.js';
import { authedUrl, call, DEV_VALUES, git, gitTestEnv } from './helpers.js';
import { gitlabFixture } from './fixture-shapes.js';
import { GithubContract } from './openapi.js';

const NOW = Date.UTC(2026, 10, 24, 12, 0, 0);
const REPO = 'acme/fleet';
const CREATE = 'POST /repos/{owner}/{repo}/pulls';

describe('GitHub faults', () => {
  let forge: ForgeHandle;
  let token: string;
  let contract: GithubContract;
  const slept: number[] = [];

  const post = () =>
    call(forge, `/repos/${REPO}/pulls`, {
      token,
      method: 'POST',
      body: { title: 'Promote', head: 'promotion-apps-podinfo-dev', base: 'main' },
    });

  beforeAll(async () => {
    contract = new GithubContract();
    forge = await startForge({
      kind: 'github',
      now: () => NOW,
      sleep: (ms) => {
        slept.push(ms);
        return Promise.resolve();
      },
    });
    await forge.createRepo(REPO, { 'envs/dev/podinfo.yaml': DEV_VALUES });
    await forge.commit(
      REPO,
      'promotion-apps-podinfo-dev',
      { 'envs/dev/podinfo.yaml': 'v2\n' },
      'Promote',
    );
    token = forge.addToken('promoter');
  });
  afterAll(async () => {
    await forge.close();
  });

  it('rate-limits the next N matching calls with the primary limit (403, x-ratelimit-*)', async () => {
    forge.faults.set({ rateLimit: { count: 2, routes: [CREATE] } });
    for (let i = 0; i < 2; i++) {
      const r = await post();
      expect(r.status).toBe(403);
      expect(r.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(r.headers.get('x-ratelimit-reset')).toBe(String(NOW / 1000 + 60));
      expect(r.json.message).toMatch(/^API rate limit exceeded/);
      contract.validate('POST', `/repos/${REPO}/pulls`, r.status, r.json);
      // Other routes are not limited.
      expect((await call(forge, `/repos/${REPO}`, { token })).status).toBe(200);
    }
    expect(forge.faults.current().rateLimit).toBeUndefined();
    expect((await post()).status).toBe(201);
    expect(forge.faults.stats().rateLimited).toBe(2);
  });

  it('answers secondary limits with retry-after (429, or 403 when asked)', async () => {
    forge.faults.set({ rateLimit: { count: 1, style: 'secondary', retryAfterSeconds: 17 } });
    const r = await call(forge, `/repos/${REPO}/pulls/1`, { token });
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe('17');
    expect(r.json.message).toMatch(/secondary rate limit/);
    contract.validate('GET', `/repos/${REPO}/pulls/1`, r.status, r.json);
    forge.faults.set({ rateLimit: { count: 1, style: 'secondary', status: 403 } });
    const forbidden = await call(forge, `/repos/${REPO}/pulls/1`, { token });
    expect([forbidden.status, forbidden.headers.get('retry-after')]).toEqual([403, '60']);
  });

  it('injects errors for a count, then serves again; on Git too', async () => {
    forge.faults.set({ errors: [{ code: 503, count: 1, scope: 'api' }] });
    const r = await call(forge, `/repos/${REPO}/pulls/1`, { token });
    expect(r.status).toBe(503);
    expect(r.json).toMatchObject({ message: 'Service Unavailable', status: '503' });
    contract.validate('GET', `/repos/${REPO}/pulls/1`, r.status, r.json);
    expect((await call(forge, `/repos/${REPO}/pulls/1`, { token })).status).toBe(200);
    const env = await gitTestEnv();
    const url = authedUrl(forge, REPO, 'x-access-token', token);
    forge.faults.set({ errors: [{ code: 502, count: 1, scope: 'git' }] });
    expect((await git(['ls-remote', url], env.HOME ?? '/', env)).stderr).toMatch(/502/);
    expect((await git(['ls-remote', url], env.HOME ?? '/', env)).code).toBe(0);
    expect(forge.faults.stats().injectedErrors).toBe(2);
  });

  it('adds latency through the injected sleep, narrowed by method', async () => {
    slept.length = 0;
    forge.faults.set({ latency: { ms: 250, methods: ['PATCH'] } });
    await call(forge, `/repos/${REPO}/pulls/1`, { token });
    await call(forge, `/repos/${REPO}/pulls/1`, { token, method: 'PATCH', body: { title: 'x' } });
    expect(slept).toEqual([250]);
    expect(forge.faults.stats()).toMatchObject({ delayedRequests: 1, injectedDelayMs: 250 });
    forge.faults.clear('latency');
  });

  it('holds requests while a hang is set, and releases them when it is cleared', async () => {
    forge.faults.set({ hang: { routes: ['GET /repos/{owner}/{repo}'] } });
    const pending = call(forge, `/repos/${REPO}`, { token });
    await vi.waitFor(() => {
      expect(forge.faults.stats().hanging).toBe(1);
    });
    expect((await call(forge, `/repos/${REPO}/pulls`, { token })).status).toBe(200);
    forge.faults.clear('hang');
    expect((await pending).status).toBe(200);
  });

  it('counts every request on arrival by scope, method and route, failures included', async () => {
    forge.requests.reset();
    await call(forge, `/repos/${REPO}`, { token });
    await call(forge, `/repos/${REPO}`, { token: 'bad' });
    await call(forge, '/nowhere');
    const env = await gitTestEnv();
    await git(['ls-remote', authedUrl(forge, REPO, 'x-access-token', token)], env.HOME ?? '/', env);
    expect(forge.requests.count({ route: 'GET /repos/{owner}/{repo}' })).toBe(2);
    // git ls-remote (protocol v2): a 401 challenge, the authenticated advertisement, ls-refs.
    expect(forge.requests.count({ scope: 'git' })).toBe(3);
    const snapshot = forge.requests.snapshot();
    expect(snapshot.byScope).toEqual({ api: 3, git: 3, web: 0, admin: 0 });
    expect(snapshot.byRoute['GET /{repo}.git/info/refs?service=git-upload-pack']).toBe(2);
    expect(snapshot.byRoute['POST /{repo}.git/git-upload-pack']).toBe(1);
    forge.requests.reset();
    expect(forge.requests.snapshot().total).toBe(0);
  });
});

describe('GitLab faults and the admin routes', () => {
  let forge: ForgeHandle;
  let token: string;
  const project = encodeURIComponent('acme/platform/fleet');
  const admin = async (method: string, path: string, body?: unknown) => {
    const init =
      body === undefined
        ? { method }
        : { method, body: JSON.stringify(body), headers: { 'content-type': 'application/json' } };
    const res = await fetch(`${forge.url}/_forge${path}`, init);
    return { status: res.status, json: JSON.parse(await res.text()) };
  };

  beforeAll(async () => {
    forge = await startForge({ kind: 'gitlab', now: () => NOW });
    await forge.createRepo('acme/platform/fleet', { 'envs/dev/podinfo.yaml': DEV_VALUES });
    token = forge.addToken('promoter');
  });
  afterAll(async () => {
    await forge.close();
  });

  it("rate-limits with GitLab's 429, Retry-After and RateLimit-* headers", async () => {
    forge.faults.set({ rateLimit: { count: 1, retryAfterSeconds: 30 } });
    const r = await call(forge, `/projects/${project}`, { token, auth: 'private-token' });
    const documented = gitlabFixture('errors.json')['429'];
    expect(r.status).toBe(documented.status);
    expect(r.text.trim()).toBe(documented.body);
    for (const name of Object.keys(documented.headers as object))
      expect(r.headers.get(name)).not.toBeNull();
    expect(r.headers.get('retry-after')).toBe('30');
    expect(r.headers.get('ratelimit-reset')).toBe(String(NOW / 1000 + 30));
    expect(r.headers.get('ratelimit-resettime')).toBe(new Date(NOW + 30_000).toUTCString());
    expect(
      (await call(forge, `/projects/${project}`, { token, auth: 'private-token' })).status,
    ).toBe(200);
  });

  it('sets faults, reads counters and presses merge through /_forge', async () => {
    expect((await admin('PUT', '/faults', { errors: [{ code: 500, scope: 'api' }] })).status).toBe(
      200,
    );
    const failed = await call(forge, `/projects/${project}`, { token, auth: 'private-token' });
    expect([failed.status, failed.json]).toEqual([500, { message: '500 Internal Server Error' }]);
    expect((await admin('GET', '/faults')).json.stats.injectedErrors).toBe(1);
    await admin('DELETE', '/faults');
    await forge.commit(
      'acme/platform/fleet',
      'promo',
      { 'envs/dev/podinfo.yaml': 'v2\n' },
      'Promote',
    );
    const opened = await call(forge, `/projects/${project}/merge_requests`, {
      token,
      method: 'POST',
      body: { source_branch: 'promo', target_branch: 'main', title: 'Promote' },
    });
    const merged = await admin('POST', '/merge', {
      repo: 'acme/platform/fleet',
      number: opened.json.iid,
    });
    expect(merged.json.sha).toBe(await forge.branchHead('acme/platform/fleet', 'main'));
    expect((await admin('POST', '/merge', { repo: 'acme/platform/fleet', number: 1 })).status).toBe(
      409,
    );
    const counts = (await admin('GET', '/requests')).json;
    expect(counts.byRoute['POST /projects/{id}/merge_requests']).toBe(1);
    expect(counts.byScope.admin).toBeGreaterThanOrEqual(4);
  });

  it('releases hung requests when the forge closes, and closes once', async () => {
    const other = await startForge({ kind: 'gitlab' });
    other.faults.set({ hang: {} });
    const pending = fetch(`${other.apiUrl}/projects/1`).then(
      (r) => r.status,
      () => 'dropped',
    );
    await vi.waitFor(() => {
      expect(other.faults.stats().hanging).toBe(1);
    });
    await other.close();
    await other.close();
    expect([404, 'dropped']).toContain(await pending);
  });
});
