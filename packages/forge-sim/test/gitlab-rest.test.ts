/**
 * The simulated GitLab REST v4 subset, end to end, with the project and merge-request answers
 * checked against the documented examples recorded in fixtures/gitlab (see its README).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ForgeHandle } from '../src/index.js';
import { startForge } from '../src/index.js';
import type { CallOptions, Reply } from './helpers.js';
import { call, DEV_VALUES } from './helpers.js';
import type { ShapeContract } from './fixture-shapes.js';
import { gitlabFixture, shapeProblems } from './fixture-shapes.js';

const REPO = 'acme/platform/fleet';
const ENCODED = encodeURIComponent(REPO);
const BRANCH = 'promotion-apps-podinfo-dev';

/** Keys of the documented examples the simulator leaves out, and why. */
const MR_OMITTED = {
  approvals_before_merge: 'Premium and Ultimate only; deprecated in favour of the approvals API',
  allow_collaboration: 'shown only for merge requests from forks',
  allow_maintainer_to_push: 'shown only for merge requests from forks',
  diverged_commits_count: 'shown only with include_diverged_commits_count=true',
};
const PROJECT_OMITTED = {
  license_url: 'shown only with license=true',
  license: 'shown only with license=true',
  statistics: 'shown only with statistics=true',
  runners_token: 'shown only to users who may administer the project',
  approvals_before_merge: 'Premium and Ultimate only',
  mirror: 'Premium and Ultimate only',
  mirror_user_id: 'Premium and Ultimate only',
  mirror_trigger_builds: 'Premium and Ultimate only',
  only_mirror_protected_branches: 'Premium and Ultimate only',
  mirror_overwrites_diverged_branches: 'Premium and Ultimate only',
  external_authorization_classification_label: 'Premium and Ultimate only',
  marked_for_deletion_at: 'Premium and Ultimate only, and only for projects pending deletion',
  marked_for_deletion_on: 'Premium and Ultimate only, and only for projects pending deletion',
  compliance_frameworks: 'Premium and Ultimate only',
  spp_repository_pipeline_access: 'only with security orchestration policies (Ultimate)',
};

const single = gitlabFixture('merge-request.json');
const created = gitlabFixture('merge-request-create.json');
const updated = gitlabFixture('merge-request-update.json');
const merged = gitlabFixture('merge-request-merge.json');
const [listed] = gitlabFixture('merge-requests-list.json') as unknown[];
const allMrExamples = [single, created, updated, merged, listed];
const errors = gitlabFixture('errors.json');

const mrContract = (required: unknown): ShapeContract => ({
  required,
  documented: allMrExamples,
  omitted: MR_OMITTED,
});

let forge: ForgeHandle;
let token: string;
let checked = 0;

/** A REST call whose answer is checked against `contract` when it succeeds. */
async function gl(path: string, opts: CallOptions = {}, contract?: ShapeContract): Promise<Reply> {
  const reply = await call(forge, path, { token, auth: 'private-token', ...opts });
  if (contract !== undefined && reply.status < 300) {
    const bodies = Array.isArray(reply.json) ? (reply.json as unknown[]) : [reply.json];
    for (const body of bodies) expect(shapeProblems(body, contract)).toEqual([]);
    checked += bodies.length;
  }
  return reply;
}

beforeAll(async () => {
  forge = await startForge({ kind: 'gitlab' });
  await forge.createRepo(REPO, { 'envs/dev/podinfo.yaml': DEV_VALUES });
  token = forge.addToken('promoter');
});
afterAll(async () => {
  await forge.close();
});

describe('projects', () => {
  const contract = {
    required: gitlabFixture('project.json'),
    documented: [gitlabFixture('project.json')],
    omitted: PROJECT_OMITTED,
  };

  it('finds the project by URL-encoded path and by id, with the documented keys', async () => {
    const byPath = await gl(`/projects/${ENCODED}`, {}, contract);
    expect(byPath.status).toBe(200);
    expect(byPath.json).toMatchObject({ path_with_namespace: REPO, default_branch: 'main' });
    expect(byPath.json.http_url_to_repo).toBe(forge.cloneUrl(REPO));
    expect(byPath.json.namespace).toMatchObject({ full_path: 'acme/platform', kind: 'group' });
    const byId = await gl(`/projects/${String(byPath.json.id)}`, { auth: 'bearer' }, contract);
    expect(byId.json.id).toBe(byPath.json.id);
    expect(byId.headers.get('x-request-id')).toMatch(/^[0-9A-F]{26}$/);
  });
});

describe('a merge request from opened to merged', () => {
  it('opens it (201), and refuses a second one for the source branch (409)', async () => {
    const head = await forge.commit(
      REPO,
      BRANCH,
      { 'envs/dev/podinfo.yaml': DEV_VALUES.replace('6.5.0', '6.5.1') },
      'Promote',
    );
    const body = {
      source_branch: BRANCH,
      target_branch: 'main',
      title: 'Promote apps/podinfo in dev to 6.5.1',
      description: 'metadata',
    };
    const r = await gl(
      `/projects/${ENCODED}/merge_requests`,
      { method: 'POST', body },
      mrContract(created),
    );
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({
      iid: 1,
      state: 'opened',
      sha: head,
      detailed_merge_status: 'mergeable',
    });
    expect(r.json.author.username).toBe('promoter');
    const again = await gl(`/projects/${ENCODED}/merge_requests`, { method: 'POST', body });
    expect(again.status).toBe(409);
    expect(again.json).toEqual({
      message: ['Another open merge request already exists for this source branch: !1'],
    });
    expect(Object.keys(again.json as object)).toEqual(
      Object.keys(errors['409_merge_request_exists'] as object),
    );
  });

  it('refuses missing parameters (400), unknown branches (422) and one branch for both (409)', async () => {
    const missing = await gl(`/projects/${ENCODED}/merge_requests`, {
      method: 'POST',
      body: { source_branch: BRANCH },
    });
    expect(missing.status).toBe(400);
    expect(missing.json.error).toBe('target_branch is missing, title is missing');
    const unknown = await gl(`/projects/${ENCODED}/merge_requests`, {
      method: 'POST',
      body: { source_branch: 'nope', target_branch: 'main', title: 't' },
    });
    expect(unknown.status).toBe(422);
    const same = await gl(`/projects/${ENCODED}/merge_requests`, {
      method: 'POST',
      body: { source_branch: BRANCH, target_branch: BRANCH, title: 't' },
    });
    expect(same.status).toBe(409);
  });

  it('lists it by source branch and state, with pagination headers', async () => {
    const r = await gl(
      `/projects/${ENCODED}/merge_requests?source_branch=${BRANCH}&state=opened`,
      {},
      {
        required: listed,
        documented: allMrExamples,
        omitted: MR_OMITTED,
      },
    );
    expect((r.json as { iid: number }[]).map((m) => m.iid)).toEqual([1]);
    expect(r.headers.get('x-total')).toBe('1');
    expect((await gl(`/projects/${ENCODED}/merge_requests?state=merged`)).json).toEqual([]);
  });

  it('updates title and description, closes and reopens through state_event', async () => {
    const path = `/projects/${ENCODED}/merge_requests/1`;
    const r = await gl(
      path,
      { method: 'PUT', body: { title: 'Promote to 6.5.2', description: 'new' } },
      mrContract(updated),
    );
    expect(r.json).toMatchObject({ title: 'Promote to 6.5.2', description: 'new' });
    expect((await gl(path, { method: 'PUT', body: { state_event: 'close' } })).json.state).toBe(
      'closed',
    );
    expect((await gl(path, { method: 'PUT', body: { state_event: 'reopen' } })).json.state).toBe(
      'opened',
    );
    expect((await gl(path, { method: 'PUT', body: {} })).status).toBe(400);
  });

  it('merges only the head it was shown (409), then merges (200) with a merge commit', async () => {
    const path = `/projects/${ENCODED}/merge_requests/1`;
    const current = (await gl(path, {}, mrContract(single))).json;
    const stale = await gl(`${path}/merge`, { method: 'PUT', body: { sha: 'f'.repeat(40) } });
    expect(stale.status).toBe(409);
    expect(stale.json).toEqual(errors['409_sha_mismatch']);
    const r = await gl(
      `${path}/merge`,
      { method: 'PUT', body: { sha: current.sha } },
      mrContract(merged),
    );
    expect(r.json).toMatchObject({ state: 'merged', detailed_merge_status: 'not_open' });
    expect(r.json.merge_commit_sha).toBe(await forge.branchHead(REPO, 'main'));
    const [commit] = await forge.log(REPO, 'main');
    expect(commit?.message).toMatch(/^Merge branch 'promotion-apps-podinfo-dev' into 'main'/);
    expect(commit?.parents).toEqual([current.diff_refs.base_sha, current.sha]);
    const again = await gl(`${path}/merge`, { method: 'PUT' });
    expect(again.status).toBe(405);
    expect(again.json).toEqual(errors['405_merge']);
    const read = await gl(path, {}, mrContract(single));
    expect(read.json.merged_at).not.toBeNull();
    expect(forge.pullRequests(REPO)[0]?.state).toBe('merged');
  });

  it('merges through the forge and refuses conflicting merges (422)', async () => {
    await forge.commit(
      REPO,
      'promotion-apps-podinfo-prod',
      { 'envs/dev/podinfo.yaml': 'prod\n' },
      'Promote prod',
    );
    const body = {
      source_branch: 'promotion-apps-podinfo-prod',
      target_branch: 'main',
      title: 'prod',
    };
    const opened = await gl(`/projects/${ENCODED}/merge_requests`, { method: 'POST', body });
    await forge.commit(REPO, 'main', { 'envs/dev/podinfo.yaml': 'hotfix\n' }, 'Hotfix');
    const path = `/projects/${ENCODED}/merge_requests/${String(opened.json.iid)}`;
    expect((await gl(path, {}, mrContract(single))).json).toMatchObject({
      has_conflicts: true,
      detailed_merge_status: 'conflict',
    });
    const refused = await gl(`${path}/merge`, { method: 'PUT' });
    expect(refused.status).toBe(422);
    expect(refused.json).toEqual(errors['422_merge']);
    await forge.close(REPO, opened.json.iid as number);
    expect((await gl(path)).json.state).toBe('closed');
  });
});

describe('authentication and authorisation', () => {
  it('answers 401 for unknown tokens and 404 for hidden projects', async () => {
    const bad = await gl(`/projects/${ENCODED}`, { token: 'glpat-wrong' });
    expect(bad.status).toBe(401);
    expect(bad.json).toEqual(errors['401']);
    expect((await call(forge, `/projects/${ENCODED}`)).status).toBe(404);
    const other = forge.addToken('outsider', ['api'], ['someone/else']);
    const hidden = await gl(`/projects/${ENCODED}/merge_requests`, { token: other });
    expect(hidden.status).toBe(404);
    expect(hidden.json).toEqual(errors['404_project']);
  });

  it('answers 403 insufficient_scope when a read_api token writes', async () => {
    const reader = forge.addToken('reader', ['read_api']);
    expect((await gl(`/projects/${ENCODED}/merge_requests`, { token: reader })).status).toBe(200);
    const denied = await gl(`/projects/${ENCODED}/merge_requests`, {
      token: reader,
      method: 'POST',
      body: { source_branch: BRANCH, target_branch: 'main', title: 't' },
    });
    expect(denied.status).toBe(403);
    expect(denied.json).toEqual(errors['403_insufficient_scope']);
  });
});

describe('the documented-shape check itself', () => {
  it('checked every answer above and catches a drifted answer', () => {
    expect(checked).toBeGreaterThanOrEqual(8);
    const drifted = { ...single, state: 1, invented: true } as Record<string, unknown>;
    delete drifted.iid;
    expect(shapeProblems(drifted, mrContract(single))).toEqual([
      'iid: documented, missing from the simulator',
      'state: number, documented as string',
      'invented: not in any documented example',
    ]);
  });
});
