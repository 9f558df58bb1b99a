/**
 * The GitHub REST subset pull-request promotions use: the repository, a branch, and pull
 * requests (list, create, get, update, merge), under /api/v3 as on GitHub Enterprise Server.
 */
import type { ApiFront, ApiOperation, ApiRequest, ApiResult } from './api.js';
import { mergeThroughForge, openPull, pageOf } from './api.js';
import { route, str } from './http.js';
import { MergeError } from './pulls.js';
import type { PullRecord } from './pulls.js';
import { branchObject, fullRepository } from './github-shapes.js';
import { pullRequestFull, pullRequestSimple } from './github-pull.js';
import { viewPull } from './pull-view.js';
import { githubStatusRoutes } from './github-statuses.js';
import {
  githubError,
  githubFault,
  githubInternal,
  githubUnmatched,
  serveGithub,
  validationFailed,
} from './github-http.js';

const DOCS = 'https://docs.github.com/rest';
const PULLS_DOCS = `${DOCS}/pulls/pulls`;

function findPull(r: ApiRequest, docs: string): PullRecord {
  const pull = r.state.pulls.get(r.repo, Number(r.params[0]));
  if (pull === undefined) throw githubError(404, 'Not Found', docs);
  return pull;
}

/** `head` as GitHub accepts it: `branch` or `owner:branch` of the same repository. */
function headBranch(r: ApiRequest, head: string, docs: string): string {
  const colon = head.indexOf(':');
  if (colon < 0) return head;
  if (head.slice(0, colon) !== r.repo.namespace)
    throw validationFailed(docs, { field: 'head', code: 'invalid' });
  return head.slice(colon + 1);
}

function getRepo(r: ApiRequest): Promise<ApiResult> {
  const body = fullRepository(r.state, r.repo, r.grants.has('git:write'));
  return Promise.resolve({ status: 200, body });
}

async function getBranch(r: ApiRequest): Promise<ApiResult> {
  const branch = r.params[0] ?? '';
  const sha = await r.state.repos.branchHead(r.repo, branch);
  if (sha === undefined)
    throw githubError(404, 'Branch not found', `${DOCS}/branches/branches#get-a-branch`);
  const head = await r.state.repos.commitDetails(r.repo, sha);
  return { status: 200, body: branchObject(r.state, r.repo, branch, head) };
}

async function listPulls(r: ApiRequest): Promise<ApiResult> {
  const state = r.query.get('state') ?? 'open';
  const head = r.query.get('head');
  const base = r.query.get('base');
  const pulls = pageOf(r.query, 30).slice(
    r.state.pulls
      .list(r.repo)
      .filter((p) => state === 'all' || (state === 'open') === (p.state === 'open'))
      .filter((p) => head === null || `${r.repo.namespace}:${p.head}` === head || p.head === head)
      .filter((p) => base === null || p.base === base)
      .reverse(),
  );
  const body = await Promise.all(pulls.map(async (p) => pullRequestSimple(await viewPull(r, p))));
  return { status: 200, body };
}

async function createPull(r: ApiRequest): Promise<ApiResult> {
  const docs = `${PULLS_DOCS}#create-a-pull-request`;
  for (const field of ['head', 'base', 'title'])
    if (str(r.body, field) === undefined)
      throw validationFailed(docs, { field, code: 'missing_field' });
  const head = headBranch(r, str(r.body, 'head') ?? '', docs);
  const base = str(r.body, 'base') ?? '';
  const { repos, pulls } = r.state;
  const headSha = await repos.branchHead(r.repo, head);
  const baseSha = await repos.branchHead(r.repo, base);
  if (baseSha === undefined) throw validationFailed(docs, { field: 'base', code: 'invalid' });
  if (headSha === undefined) throw validationFailed(docs, { field: 'head', code: 'invalid' });
  if (pulls.findOpen(r.repo, head, base) !== undefined) {
    const message = `A pull request already exists for ${r.repo.namespace}:${head}.`;
    throw validationFailed(docs, { code: 'custom', message });
  }
  if (await repos.isAncestor(r.repo, headSha, baseSha))
    throw validationFailed(docs, {
      code: 'custom',
      message: `No commits between ${base} and ${head}`,
    });
  const pull = openPull(r, head, base, 'body');
  const body = await pullRequestFull(await viewPull(r, pull));
  return { status: 201, body, headers: { location: String(body.url) } };
}

async function getPull(r: ApiRequest): Promise<ApiResult> {
  const pull = findPull(r, `${PULLS_DOCS}#get-a-pull-request`);
  return { status: 200, body: await pullRequestFull(await viewPull(r, pull)) };
}

async function updatePull(r: ApiRequest): Promise<ApiResult> {
  const docs = `${PULLS_DOCS}#update-a-pull-request`;
  const pull = findPull(r, docs);
  const { repos, pulls } = r.state;
  const base = str(r.body, 'base');
  if (base !== undefined && (await repos.branchHead(r.repo, base)) === undefined)
    throw validationFailed(docs, { field: 'base', code: 'invalid' });
  const state = str(r.body, 'state');
  if (state === 'open' && pull.state === 'merged')
    throw validationFailed(docs, {
      code: 'custom',
      message: 'state cannot be changed. The pull request cannot be reopened.',
    });
  pulls.edit(pull, { title: str(r.body, 'title'), body: str(r.body, 'body'), base });
  if (state === 'closed') await pulls.close(repos, r.repo, pull, r.user);
  if (state === 'open') pulls.reopen(pull);
  return { status: 200, body: await pullRequestFull(await viewPull(r, pull)) };
}

async function mergePull(r: ApiRequest): Promise<ApiResult> {
  const docs = `${PULLS_DOCS}#merge-a-pull-request`;
  const pull = findPull(r, docs);
  const requested = str(r.body, 'merge_method') ?? 'merge';
  // A rebase of commits already on top of the base is a fast-forward here (same commits).
  const method =
    requested === 'rebase' ? 'fast-forward' : requested === 'squash' ? 'squash' : 'merge';
  const title = str(r.body, 'commit_title');
  const extra = str(r.body, 'commit_message');
  const message = title === undefined ? undefined : `${title}\n\n${extra ?? pull.title}\n`;
  try {
    const sha = await mergeThroughForge(r.state, r.repo, pull, {
      method,
      sha: str(r.body, 'sha'),
      by: r.user,
      message,
    });
    return {
      status: 200,
      body: { sha, merged: true, message: 'Pull Request successfully merged' },
    };
  } catch (err) {
    if (!(err instanceof MergeError)) throw err;
    if (err.reason === 'sha-mismatch')
      throw githubError(409, 'Head branch was modified. Review and try the merge again.', docs);
    throw githubError(405, 'Pull Request is not mergeable', docs);
  }
}

const op = (
  needs: ApiOperation['needs'],
  docs: string,
  run: ApiOperation['run'],
): ApiOperation => ({
  needs,
  docs,
  run,
});

const REPO = '/repos/{owner}/{repo}';

/** GitHub's REST front. */
export const githubApi: ApiFront = {
  prefix: '/api/v3',
  routes: [
    route('GET', REPO, op(['repo:read'], `${DOCS}/repos/repos#get-a-repository`, getRepo)),
    route(
      'GET',
      `${REPO}/branches/{branch+}`,
      op(['repo:read'], `${DOCS}/branches/branches#get-a-branch`, getBranch),
    ),
    route(
      'GET',
      `${REPO}/pulls`,
      op(['pulls:read'], `${PULLS_DOCS}#list-pull-requests`, listPulls),
    ),
    route(
      'POST',
      `${REPO}/pulls`,
      op(['pulls:write'], `${PULLS_DOCS}#create-a-pull-request`, createPull),
    ),
    route(
      'GET',
      `${REPO}/pulls/{pull_number}`,
      op(['pulls:read'], `${PULLS_DOCS}#get-a-pull-request`, getPull),
    ),
    route(
      'PATCH',
      `${REPO}/pulls/{pull_number}`,
      op(['pulls:write'], `${PULLS_DOCS}#update-a-pull-request`, updatePull),
    ),
    route(
      'PUT',
      `${REPO}/pulls/{pull_number}/merge`,
      op(['pulls:write', 'git:write'], `${PULLS_DOCS}#merge-a-pull-request`, mergePull),
    ),
    ...githubStatusRoutes(op),
  ],
  serve: serveGithub,
  unmatched: githubUnmatched,
  fault: githubFault,
  internalError: githubInternal,
};
