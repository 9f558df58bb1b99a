/**
 * The GitLab REST v4 subset pull-request promotions use: the project (by id or URL-encoded
 * path) and its merge requests (list, create, get, update, merge).
 */
import type { ApiFront, ApiOperation, ApiRequest, ApiResult } from './api.js';
import { mergeThroughForge, openPull, pageOf } from './api.js';
import { HttpError, route, str } from './http.js';
import type { PullRecord } from './pulls.js';
import { MergeError } from './pulls.js';
import { gitlabProject } from './gitlab-project.js';
import { mergeRequestBasic, mergeRequestFull } from './gitlab-mr.js';
import { viewPull } from './pull-view.js';
import { gitlabStatusRoutes } from './gitlab-statuses.js';
import {
  gitlabError,
  gitlabFault,
  gitlabInternal,
  gitlabUnmatched,
  serveGitlab,
} from './gitlab-http.js';

const STATES: Record<string, PullRecord['state']> = {
  opened: 'open',
  closed: 'closed',
  merged: 'merged',
};

/** GitLab's validation answer: `{"message": ["..."]}`. */
function rejected(status: number, message: string): HttpError {
  return new HttpError(status, { message: [message] });
}

function findMr(r: ApiRequest): PullRecord {
  const pull = r.state.pulls.get(r.repo, Number(r.params[0]));
  if (pull === undefined) throw gitlabError(404, 'Not found');
  return pull;
}

async function full(r: ApiRequest, pull: PullRecord, status = 200): Promise<ApiResult> {
  const body = await mergeRequestFull(await viewPull(r, pull), r.grants.has('pulls:write'));
  return { status, body };
}

function getProject(r: ApiRequest): Promise<ApiResult> {
  const body = gitlabProject(r.state, r.repo, r.grants.has('pulls:write') ? 30 : 20);
  return Promise.resolve({ status: 200, body });
}

async function listMrs(r: ApiRequest): Promise<ApiResult> {
  const wanted = r.query.get('state') ?? 'all';
  const source = r.query.get('source_branch');
  const target = r.query.get('target_branch');
  const { page, perPage, slice } = pageOf(r.query, 20);
  const all = r.state.pulls
    .list(r.repo)
    .filter((p) => wanted === 'all' || STATES[wanted] === p.state)
    .filter((p) => (source === null || p.head === source) && (target === null || p.base === target))
    .reverse();
  const pages = Math.max(1, Math.ceil(all.length / perPage));
  const body = await Promise.all(
    slice(all).map(async (p) => mergeRequestBasic(await viewPull(r, p))),
  );
  const headers = {
    'x-page': String(page),
    'x-per-page': String(perPage),
    'x-total': String(all.length),
    'x-total-pages': String(pages),
    'x-next-page': page < pages ? String(page + 1) : '',
    'x-prev-page': page > 1 ? String(page - 1) : '',
  };
  return { status: 200, body, headers };
}

async function createMr(r: ApiRequest): Promise<ApiResult> {
  const missing = ['source_branch', 'target_branch', 'title'].filter(
    (k) => str(r.body, k) === undefined,
  );
  if (missing.length > 0)
    throw new HttpError(400, { error: missing.map((k) => `${k} is missing`).join(', ') });
  const head = str(r.body, 'source_branch') ?? '';
  const base = str(r.body, 'target_branch') ?? '';
  const { repos, pulls } = r.state;
  // GitLab files this and the duplicate check under validate_branches, answered 409 Conflict.
  if (head === base) throw rejected(409, "You can't use same project/branch for source and target");
  if ((await repos.branchHead(r.repo, head)) === undefined)
    throw rejected(422, `Source branch "${head}" does not exist`);
  if ((await repos.branchHead(r.repo, base)) === undefined)
    throw rejected(422, `Target branch "${base}" does not exist`);
  const existing = pulls.findOpen(r.repo, head, base);
  if (existing !== undefined)
    throw rejected(
      409,
      `Another open merge request already exists for this source branch: !${String(existing.number)}`,
    );
  return full(r, openPull(r, head, base, 'description'), 201);
}

async function getMr(r: ApiRequest): Promise<ApiResult> {
  return full(r, findMr(r));
}

async function updateMr(r: ApiRequest): Promise<ApiResult> {
  const pull = findMr(r);
  const keys = ['title', 'description', 'state_event', 'target_branch'];
  if (!keys.some((k) => str(r.body, k) !== undefined))
    throw new HttpError(400, {
      error: `${keys.join(', ')} are missing, at least one parameter must be provided`,
    });
  const { repos, pulls } = r.state;
  const target = str(r.body, 'target_branch');
  if (target !== undefined && (await repos.branchHead(r.repo, target)) === undefined)
    throw rejected(422, `Target branch "${target}" does not exist`);
  pulls.edit(pull, { title: str(r.body, 'title'), body: str(r.body, 'description'), base: target });
  const event = str(r.body, 'state_event');
  if (event === 'close') await pulls.close(repos, r.repo, pull, r.user);
  if (event === 'reopen') pulls.reopen(pull);
  return full(r, pull);
}

async function mergeMr(r: ApiRequest): Promise<ApiResult> {
  const pull = findMr(r);
  const squash = r.body.squash === true || r.body.squash === 'true';
  const message = str(r.body, squash ? 'squash_commit_message' : 'merge_commit_message');
  try {
    await mergeThroughForge(r.state, r.repo, pull, {
      method: squash ? 'squash' : 'merge',
      sha: str(r.body, 'sha'),
      by: r.user,
      message,
    });
  } catch (err) {
    if (!(err instanceof MergeError)) throw err;
    if (err.reason === 'sha-mismatch')
      throw new HttpError(409, { message: 'SHA does not match HEAD of source branch' });
    if (err.reason === 'conflict') throw new HttpError(422, { message: 'Branch cannot be merged' });
    throw gitlabError(405, 'Method Not Allowed');
  }
  return full(r, pull);
}

const op = (needs: ApiOperation['needs'], run: ApiOperation['run']): ApiOperation => ({
  needs,
  docs: '',
  run,
});

const MRS = '/projects/{id}/merge_requests';

/** GitLab's REST front. */
export const gitlabApi: ApiFront = {
  prefix: '/api/v4',
  routes: [
    route('GET', '/projects/{id}', op(['repo:read'], getProject)),
    route('GET', MRS, op(['pulls:read'], listMrs)),
    route('POST', MRS, op(['pulls:write'], createMr)),
    route('GET', `${MRS}/{merge_request_iid}`, op(['pulls:read'], getMr)),
    route('PUT', `${MRS}/{merge_request_iid}`, op(['pulls:write'], updateMr)),
    route('PUT', `${MRS}/{merge_request_iid}/merge`, op(['pulls:write'], mergeMr)),
    ...gitlabStatusRoutes(op),
  ],
  serve: serveGitlab,
  unmatched: gitlabUnmatched,
  fault: gitlabFault,
  internalError: gitlabInternal,
};
