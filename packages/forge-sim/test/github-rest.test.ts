/**
 * The simulated GitHub REST subset, end to end, with every answer a test reads validated against
 * GitHub's published OpenAPI description (./openapi.ts). The last test asserts which operations
 * and statuses were validated, so coverage cannot shrink unnoticed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ForgeHandle } from '../src/index.js';
import { startForge } from '../src/index.js';
import type { CallOptions, Reply } from './helpers.js';
import { call, DEV_VALUES } from './helpers.js';
import { GithubContract } from './openapi.js';

const REPO = 'acme/fleet';
const BRANCH = 'promotion-apps-podinfo-dev';
const TITLE = 'Promote apps/podinfo in dev to 6.5.1';

let forge: ForgeHandle;
let contract: GithubContract;
let token: string;

/** A REST call whose JSON answer must fit the description. */
async function gh(path: string, opts: CallOptions = {}): Promise<Reply> {
  const reply = await call(forge, path, { token, ...opts });
  contract.validate(opts.method ?? 'GET', path.split('?')[0] ?? path, reply.status, reply.json);
  return reply;
}

async function promotionBranch(version: string, branch = BRANCH): Promise<string> {
  return forge.commit(
    REPO,
    branch,
    { 'envs/dev/podinfo.yaml': DEV_VALUES.replace('6.5.0', version) },
    `Promote apps/podinfo in dev to ${version}`,
  );
}

beforeAll(async () => {
  contract = new GithubContract();
  forge = await startForge({ kind: 'github' });
  await forge.createRepo(REPO, { 'envs/dev/podinfo.yaml': DEV_VALUES, 'README.md': '# fleet\n' });
  token = forge.addToken('promoter');
});
afterAll(async () => {
  await forge.close();
});

describe('repository and branches', () => {
  it('answers GET /repos/{owner}/{repo} with GitHub headers', async () => {
    const r = await gh(`/repos/${REPO}`);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ full_name: REPO, default_branch: 'main', private: true });
    expect(r.json.permissions).toMatchObject({ push: true, pull: true });
    expect(r.json.clone_url).toBe(forge.cloneUrl(REPO));
    expect(r.headers.get('x-github-request-id')).toMatch(/^[0-9A-F:]+$/);
    expect(r.headers.get('x-ratelimit-remaining')).toBe('4999');
  });

  it('shows a branch, its head commit and its protection', async () => {
    const open = await gh(`/repos/${REPO}/branches/main`);
    expect(open.json).toMatchObject({ name: 'main', protected: false });
    expect(open.json.commit.sha).toBe(await forge.branchHead(REPO, 'main'));
    expect(open.json.commit.commit.message).toBe('Initial commit');
    forge.protectBranch(REPO, 'main');
    expect((await gh(`/repos/${REPO}/branches/main`)).json.protected).toBe(true);
    const missing = await gh(`/repos/${REPO}/branches/nope`);
    expect(missing.status).toBe(404);
    expect(missing.json.message).toBe('Branch not found');
  });
});

describe('a pull request from open to merged', () => {
  let head: string;

  it('opens the pull request (201, Location)', async () => {
    head = await promotionBranch('6.5.1');
    const r = await gh(`/repos/${REPO}/pulls`, {
      method: 'POST',
      body: { title: TITLE, head: `acme:${BRANCH}`, base: 'main', body: 'promotion metadata' },
    });
    expect(r.status).toBe(201);
    expect(r.headers.get('location')).toBe(`${forge.apiUrl}/repos/${REPO}/pulls/1`);
    expect(r.json).toMatchObject({ number: 1, state: 'open', merged: false, title: TITLE });
    expect(r.json).toMatchObject({ mergeable: true, commits: 1, changed_files: 1 });
    expect(r.json.head).toMatchObject({ ref: BRANCH, sha: head, label: `acme:${BRANCH}` });
    expect(r.json.base.sha).toBe(await forge.branchHead(REPO, 'main'));
    expect(r.json.user.login).toBe('promoter');
  });

  it('refuses a second pull request for the same head (422)', async () => {
    const r = await gh(`/repos/${REPO}/pulls`, {
      method: 'POST',
      body: { title: TITLE, head: `acme:${BRANCH}`, base: 'main' },
    });
    expect(r.status).toBe(422);
    expect(r.json.errors[0].message).toBe(`A pull request already exists for acme:${BRANCH}.`);
  });

  it('refuses missing fields, unknown branches and empty pull requests (422)', async () => {
    const post = (body: unknown) => gh(`/repos/${REPO}/pulls`, { method: 'POST', body });
    expect((await post({ head: BRANCH, base: 'main' })).json.errors[0]).toMatchObject({
      field: 'title',
      code: 'missing_field',
    });
    expect((await post({ title: 't', head: 'nope', base: 'main' })).json.errors[0]).toMatchObject({
      field: 'head',
      code: 'invalid',
    });
    await forge.createBranch(REPO, 'same-as-main');
    const empty = await post({ title: 't', head: 'same-as-main', base: 'main' });
    expect(empty.status).toBe(422);
    expect(empty.json.errors[0].message).toBe('No commits between main and same-as-main');
  });

  it('lists it by head and state', async () => {
    const open = await gh(`/repos/${REPO}/pulls?head=acme:${BRANCH}&state=open`);
    expect((open.json as { number: number }[]).map((p) => p.number)).toEqual([1]);
    expect((await gh(`/repos/${REPO}/pulls?state=closed`)).json).toEqual([]);
    expect((await gh(`/repos/${REPO}/pulls?head=acme:other`)).json).toEqual([]);
  });

  it('updates title and body, and follows a force-pushed head', async () => {
    const r = await gh(`/repos/${REPO}/pulls/1`, {
      method: 'PATCH',
      body: { title: 'Promote apps/podinfo in dev to 6.5.2', body: 'new metadata' },
    });
    expect(r.json).toMatchObject({
      title: 'Promote apps/podinfo in dev to 6.5.2',
      body: 'new metadata',
    });
    head = await promotionBranch('6.5.2');
    expect((await gh(`/repos/${REPO}/pulls/1`)).json.head.sha).toBe(head);
  });

  it('merges only the head it was shown (409), then merges (200)', async () => {
    const stale = await gh(`/repos/${REPO}/pulls/1/merge`, {
      method: 'PUT',
      body: { sha: 'f'.repeat(40) },
    });
    expect(stale.status).toBe(409);
    const r = await gh(`/repos/${REPO}/pulls/1/merge`, { method: 'PUT', body: { sha: head } });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ merged: true, message: 'Pull Request successfully merged' });
    expect(await forge.branchHead(REPO, 'main')).toBe(r.json.sha);
    const [merge] = await forge.log(REPO, 'main');
    expect(merge?.parents[1]).toBe(head);
    expect(merge?.message).toMatch(/^Merge pull request #1 from acme\/promotion-apps-podinfo-dev/);
    expect(await forge.readFile(REPO, 'main', 'envs/dev/podinfo.yaml')).toContain('6.5.2 #');
  });

  it('reads it back as merged and refuses a second merge (405)', async () => {
    const r = await gh(`/repos/${REPO}/pulls/1`);
    expect(r.json).toMatchObject({ state: 'closed', merged: true, mergeable: null });
    expect(r.json.merged_by.login).toBe('promoter');
    expect(r.json.merged_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect((await gh(`/repos/${REPO}/pulls/1/merge`, { method: 'PUT' })).status).toBe(405);
    expect((await gh(`/repos/${REPO}/pulls?state=all`)).json[0].state).toBe('closed');
  });
});

describe('closing, reopening and the code API', () => {
  it('closes and reopens through PATCH, closes and merges through the forge', async () => {
    await promotionBranch('7.0.0', 'promotion-apps-podinfo-staging');
    const opened = await gh(`/repos/${REPO}/pulls`, {
      method: 'POST',
      body: { title: 'staging', head: 'promotion-apps-podinfo-staging', base: 'main' },
    });
    const n = String(opened.json.number);
    const closed = await gh(`/repos/${REPO}/pulls/${n}`, {
      method: 'PATCH',
      body: { state: 'closed' },
    });
    expect(closed.json).toMatchObject({ state: 'closed', merged: false });
    expect(
      (await gh(`/repos/${REPO}/pulls/${n}`, { method: 'PATCH', body: { state: 'open' } })).json
        .state,
    ).toBe('open');
    const number = opened.json.number as number;
    await forge.close(REPO, number);
    expect(forge.pullRequests(REPO).find((p) => p.number === number)?.state).toBe('closed');
    await gh(`/repos/${REPO}/pulls/${n}`, { method: 'PATCH', body: { state: 'open' } });
    const sha = await forge.merge(REPO, number, { method: 'squash' });
    const pull = (await gh(`/repos/${REPO}/pulls/${n}`)).json;
    expect(pull).toMatchObject({ merged: true, merge_commit_sha: sha });
    expect((await forge.log(REPO, 'main'))[0]?.parents.length).toBe(1);
  });

  it('shows a conflicting pull request as not mergeable and refuses to merge it (405)', async () => {
    await promotionBranch('8.0.0', 'promotion-apps-podinfo-prod');
    await forge.commit(REPO, 'main', { 'envs/dev/podinfo.yaml': 'edited on main\n' }, 'Hotfix');
    const opened = await gh(`/repos/${REPO}/pulls`, {
      method: 'POST',
      body: { title: 'prod', head: 'promotion-apps-podinfo-prod', base: 'main' },
    });
    expect(opened.json).toMatchObject({ mergeable: false, mergeable_state: 'dirty' });
    const n = String(opened.json.number);
    expect((await gh(`/repos/${REPO}/pulls/${n}/merge`, { method: 'PUT' })).status).toBe(405);
    expect((await gh(`/repos/${REPO}/pulls/999`)).status).toBe(404);
  });
});

describe('authentication and authorisation', () => {
  it('answers 401 Bad credentials for unknown and revoked tokens', async () => {
    const r = await gh(`/repos/${REPO}`, { token: 'ghp_wrong' });
    expect(r.status).toBe(401);
    expect(r.json).toEqual({
      message: 'Bad credentials',
      documentation_url: 'https://docs.github.com/rest',
      status: '401',
    });
    const revoked = forge.addToken('leaver');
    forge.revoke(revoked);
    expect((await gh(`/repos/${REPO}/pulls`, { token: revoked })).status).toBe(401);
  });

  it('hides the private repository from anonymous callers and other tokens (404)', async () => {
    expect((await call(forge, `/repos/${REPO}`)).status).toBe(404);
    const other = forge.addToken('outsider', ['repo'], ['someone/else']);
    const r = await gh(`/repos/${REPO}/pulls`, { token: other });
    expect(r.status).toBe(404);
    expect(r.json.message).toBe('Not Found');
    expect((await gh('/repos/acme/missing')).status).toBe(404);
  });

  it('answers 403 when the token may read but not write, and accepts the token scheme', async () => {
    const reader = forge.addToken('reader', ['pull_requests:read']);
    const denied = await gh(`/repos/${REPO}/pulls`, {
      token: reader,
      method: 'POST',
      body: { title: 't', head: BRANCH, base: 'main' },
    });
    expect(denied.status).toBe(403);
    expect(denied.json.message).toBe('Resource not accessible by personal access token');
    expect((await gh(`/repos/${REPO}/pulls`, { token: reader, auth: 'token' })).status).toBe(200);
  });

  it('answers 404 for REST paths it does not serve', async () => {
    const r = await call(forge, `/repos/${REPO}/issues`, { token });
    expect(r.status).toBe(404);
    expect(forge.requests.count({ route: 'GET (unmatched)' })).toBe(1);
  });
});

describe("coverage of GitHub's description", () => {
  it('validated an answer of every simulated operation and status the strategy meets', () => {
    const expected = [
      'repos/get 200',
      'repos/get 404',
      'repos/get 401 (basic-error)',
      'repos/get-branch 200',
      'repos/get-branch 404',
      'pulls/list 200',
      'pulls/list 404 (basic-error)',
      'pulls/list 401 (basic-error)',
      'pulls/create 201',
      'pulls/create 422',
      'pulls/create 403',
      'pulls/get 200',
      'pulls/get 404',
      'pulls/update 200',
      'pulls/merge 200',
      'pulls/merge 405',
      'pulls/merge 409',
    ];
    expect([...contract.checked.keys()].sort()).toEqual(expect.arrayContaining(expected));
    const total = [...contract.checked.values()].reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThanOrEqual(30);
  });
});
