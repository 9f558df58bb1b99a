/**
 * Commit statuses and check runs, on both forges: every GitHub answer a test reads is validated
 * against GitHub's OpenAPI description (./openapi.ts), every GitLab answer against the
 * documented examples recorded in fixtures/gitlab; the last test of each forge asserts which
 * operations and how many bodies were checked, so coverage cannot shrink unnoticed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ForgeHandle } from '../src/index.js';
import { startForge } from '../src/index.js';
import type { CallOptions, Reply } from './helpers.js';
import { call } from './helpers.js';
import type { ShapeContract } from './fixture-shapes.js';
import { gitlabFixture, shapeProblems } from './fixture-shapes.js';
import { GithubContract } from './openapi.js';

const FILES = { 'README.md': '# app\n' };

describe('GitHub: combined status, check runs, creating a status', () => {
  const REPO = 'acme/app';
  let forge: ForgeHandle;
  let contract: GithubContract;
  let token: string;
  let head: string;

  async function gh(path: string, opts: CallOptions = {}): Promise<Reply> {
    const reply = await call(forge, path, { token, ...opts });
    contract.validate(opts.method ?? 'GET', path.split('?')[0] ?? path, reply.status, reply.json);
    return reply;
  }

  beforeAll(async () => {
    contract = new GithubContract();
    forge = await startForge({ kind: 'github' });
    await forge.createRepo(REPO, FILES);
    head = (await forge.branchHead(REPO, 'main')) ?? '';
    await forge.createTag(REPO, 'v1.2.3');
    token = forge.addToken('ci');
  });
  afterAll(async () => {
    await forge.close();
  });

  it('says pending with no status, then the newest state per context', async () => {
    const none = await gh(`/repos/${REPO}/commits/${head}/status`);
    expect(none.status).toBe(200);
    expect(none.json).toMatchObject({ state: 'pending', total_count: 0, statuses: [], sha: head });

    const created = await gh(`/repos/${REPO}/statuses/${head}`, {
      method: 'POST',
      body: { state: 'pending', context: 'ci/e2e', description: 'running' },
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      state: 'pending',
      context: 'ci/e2e',
      creator: { login: 'ci' },
    });
    await forge.setStatus(REPO, 'main', { context: 'ci/lint', state: 'success' });
    const pending = await gh(`/repos/${REPO}/commits/main/status`);
    expect(pending.json.state).toBe('pending');
    expect(pending.json.statuses).toMatchObject([{ context: 'ci/lint' }, { context: 'ci/e2e' }]);

    await forge.setStatus(REPO, head, { context: 'CI/E2E', state: 'success' });
    const green = await gh(`/repos/${REPO}/commits/v1.2.3/status`);
    expect(green.json).toMatchObject({ state: 'success', total_count: 2, sha: head });
    await forge.setStatus(REPO, head, { context: 'ci/lint', state: 'error' });
    // A ref of two segments (the description's path template has one: not validated here).
    const tagged = await call(forge, `/repos/${REPO}/commits/tags/v1.2.3/status`, { token });
    expect([tagged.status, tagged.json.state]).toEqual([200, 'failure']);
  });

  it('lists check runs, the newest per name unless filter=all', async () => {
    await forge.setCheckRun(REPO, head, { name: 'e2e', status: 'in_progress' });
    await forge.setCheckRun(REPO, head, {
      name: 'e2e',
      status: 'completed',
      conclusion: 'failure',
    });
    await forge.setCheckRun(REPO, head, { name: 'build', status: 'queued' });
    const latest = await gh(`/repos/${REPO}/commits/${head}/check-runs`);
    expect(latest.status).toBe(200);
    expect(latest.json.total_count).toBe(2);
    expect(latest.json.check_runs).toMatchObject([
      { name: 'build', status: 'queued', conclusion: null, completed_at: null },
      { name: 'e2e', status: 'completed', conclusion: 'failure', head_sha: head },
    ]);
    const all = await gh(`/repos/${REPO}/commits/${head}/check-runs?filter=all`);
    expect(all.json.total_count).toBe(3);
    const named = await gh(`/repos/${REPO}/commits/${head}/check-runs?check_name=e2e`);
    expect(named.json.check_runs).toHaveLength(1);
  });

  it('answers an unknown ref, a bad state and a missing token as GitHub does', async () => {
    const status = await gh(`/repos/${REPO}/commits/v9.9.9/status`);
    expect(status.status).toBe(422);
    expect(status.json.message).toBe('No commit found for SHA: v9.9.9');
    expect((await gh(`/repos/${REPO}/commits/v9.9.9/check-runs`)).status).toBe(422);
    const bad = await gh(`/repos/${REPO}/statuses/${head}`, {
      method: 'POST',
      body: { state: 'green' },
    });
    expect(bad.status).toBe(422);
    const anonymous = await gh(`/repos/${REPO}/commits/${head}/status`, { token: undefined });
    expect(anonymous.status).toBe(404);
  });

  it('needs statuses:read for statuses and checks:read for check runs', async () => {
    const pullsOnly = forge.addToken('reader', ['pull_requests:read']);
    const refused = await gh(`/repos/${REPO}/commits/${head}/status`, { token: pullsOnly });
    expect(refused.status).toBe(403);
    const statusesOnly = forge.addToken('status-reader', ['statuses:read']);
    expect(
      (await gh(`/repos/${REPO}/commits/${head}/status`, { token: statusesOnly })).status,
    ).toBe(200);
    expect(
      (await gh(`/repos/${REPO}/commits/${head}/check-runs`, { token: statusesOnly })).status,
    ).toBe(403);
  });

  it('validated every answer against the description', () => {
    expect([...contract.checked.keys()].sort()).toEqual([
      'checks/list-for-ref 200',
      'checks/list-for-ref 403 (basic-error)',
      'checks/list-for-ref 422 (basic-error)',
      'repos/create-commit-status 201',
      'repos/create-commit-status 422 (basic-error)',
      'repos/get-combined-status-for-ref 200',
      'repos/get-combined-status-for-ref 403 (basic-error)',
      'repos/get-combined-status-for-ref 404',
      'repos/get-combined-status-for-ref 422 (basic-error)',
    ]);
  });
});

describe('GitLab: a commit, its statuses, setting one', () => {
  const REPO = 'acme/platform/app';
  const ENCODED = encodeURIComponent(REPO);
  const listed = gitlabFixture('commit-statuses-list.json') as unknown[];
  const created = gitlabFixture('commit-status-create.json');
  const errors = gitlabFixture('errors.json');
  const statusContract = (required: unknown): ShapeContract => ({
    required,
    documented: [...listed, created],
    omitted: { coverage: 'absent while the status reports none, as in the documented list' },
  });
  const commitContract: ShapeContract = {
    required: gitlabFixture('commit.json'),
    documented: [gitlabFixture('commit.json')],
    omitted: {},
  };
  let forge: ForgeHandle;
  let token: string;
  let head: string;
  let checked = 0;

  async function gl(path: string, opts: CallOptions = {}, shape?: ShapeContract): Promise<Reply> {
    const reply = await call(forge, path, { token, auth: 'private-token', ...opts });
    if (shape !== undefined && reply.status < 300) {
      const bodies = Array.isArray(reply.json) ? (reply.json as unknown[]) : [reply.json];
      for (const body of bodies) expect(shapeProblems(body, shape)).toEqual([]);
      checked += bodies.length;
    }
    return reply;
  }

  beforeAll(async () => {
    forge = await startForge({ kind: 'gitlab' });
    await forge.createRepo(REPO, FILES);
    head = (await forge.branchHead(REPO, 'main')) ?? '';
    await forge.createTag(REPO, 'v1.2.3');
    token = forge.addToken('ci');
  });
  afterAll(async () => {
    await forge.close();
  });

  it('finds a commit by sha, branch or URL-encoded tag', async () => {
    for (const ref of [head, 'main', encodeURIComponent('v1.2.3')]) {
      const r = await gl(`/projects/${ENCODED}/repository/commits/${ref}`, {}, commitContract);
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({
        id: head,
        short_id: head.slice(0, 8),
        title: 'Initial commit',
      });
    }
    const missing = await gl(`/projects/${ENCODED}/repository/commits/v9`);
    expect([missing.status, missing.json]).toEqual([404, errors['404_commit']]);
  });

  it('sets statuses from the body or the query, and lists the newest per name', async () => {
    const first = await gl(
      `/projects/${ENCODED}/statuses/${head}?state=running&name=e2e`,
      { method: 'POST' },
      statusContract(created),
    );
    expect(first.status).toBe(201);
    expect(first.json).toMatchObject({
      status: 'running',
      name: 'e2e',
      sha: head,
      allow_failure: false,
    });
    await gl(
      `/projects/${ENCODED}/statuses/${head}`,
      { method: 'POST', body: { state: 'success', name: 'e2e', ref: 'main', coverage: 81.5 } },
      statusContract(created),
    );
    await forge.setStatus(REPO, 'main', { context: 'lint', state: 'failed', allowFailure: true });
    const latest = await gl(
      `/projects/${ENCODED}/repository/commits/${head}/statuses`,
      {},
      statusContract(listed[0]),
    );
    expect(latest.json).toMatchObject([
      { name: 'lint', status: 'failed', allow_failure: true },
      { name: 'e2e', status: 'success', ref: 'main', coverage: 81.5 },
    ]);
    expect(latest.headers.get('x-total')).toBe('2');
    const all = await gl(`/projects/${ENCODED}/repository/commits/${head}/statuses?all=true`);
    expect(all.json).toHaveLength(3);
    const named = await gl(`/projects/${ENCODED}/repository/commits/${head}/statuses?name=e2e`);
    expect(named.json).toHaveLength(1);
  });

  it('answers bad states, unknown commits and missing scopes as GitLab does', async () => {
    const noState = await gl(`/projects/${ENCODED}/statuses/${head}`, { method: 'POST', body: {} });
    expect([noState.status, noState.json]).toEqual([400, { error: 'state is missing' }]);
    const bad = await gl(`/projects/${ENCODED}/statuses/${head}?state=green`, { method: 'POST' });
    expect(bad.status).toBe(400);
    const unknown = await gl(`/projects/${ENCODED}/repository/commits/${'0'.repeat(40)}/statuses`);
    expect([unknown.status, unknown.json]).toEqual([404, errors['404_commit']]);
    const reader = forge.addToken('reader', ['read_api']);
    expect(
      (await gl(`/projects/${ENCODED}/repository/commits/${head}/statuses`, { token: reader }))
        .status,
    ).toBe(200);
    const write = await gl(`/projects/${ENCODED}/statuses/${head}?state=success`, {
      method: 'POST',
      token: reader,
    });
    expect([write.status, write.json]).toEqual([403, errors['403_insufficient_scope']]);
  });

  it('checked the bodies against the documented examples', () => {
    // 3 commits, 2 created statuses, 2 listed statuses.
    expect(checked).toBe(7);
    expect(created).toHaveProperty('coverage');
  });
});
