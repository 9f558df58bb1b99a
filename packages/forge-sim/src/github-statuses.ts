/**
 * GitHub's commit statuses and check runs: the combined status of a ref
 * (`repos/get-combined-status-for-ref`), its check runs (`checks/list-for-ref`) and creating a
 * status (`repos/create-commit-status`), with bodies field for field as GitHub's OpenAPI
 * description requires (`combined-commit-status`, `check-run`, `status`).
 */
import type { ApiOperation, ApiRequest, ApiResult } from './api.js';
import { pageOf } from './api.js';
import { githubError, GITHUB_DOCS } from './github-http.js';
import { nodeId, repository, simpleUser } from './github-shapes.js';
import { HttpError, isoSeconds, route, str } from './http.js';
import type { Route } from './http.js';
import type { RepoRecord } from './repos.js';
import { apiBase } from './state.js';
import type { ForgeState } from './state.js';
import type { CheckRunRecord, StatusRecord } from './statuses.js';

const STATUS_DOCS = `${GITHUB_DOCS}/commits/statuses`;
const CHECKS_DOCS = `${GITHUB_DOCS}/checks/runs#list-check-runs-for-a-git-reference`;
const STATES = new Set(['error', 'failure', 'pending', 'success']);

/** The commit `ref` names, or GitHub's 422 "No commit found for SHA". */
export async function commitOf(r: ApiRequest, ref: string, docs: string): Promise<string> {
  // A ref starting with '-' would read as an option to git.
  const sha = ref.startsWith('-') ? undefined : await r.state.repos.resolve(r.repo, ref);
  if (sha === undefined) throw githubError(422, `No commit found for SHA: ${ref}`, docs);
  return sha;
}

function statusUrl(state: ForgeState, repo: RepoRecord, sha: string): string {
  return `${apiBase(state)}/repos/${repo.fullName}/statuses/${sha}`;
}

/** A `simple-commit-status` (in a combined status). */
function simpleStatus(state: ForgeState, repo: RepoRecord, s: StatusRecord) {
  return {
    url: statusUrl(state, repo, s.sha),
    avatar_url: `${state.url}/avatars/u/${String(state.userId(s.creator))}?v=4`,
    id: s.id,
    node_id: nodeId('SC', s.id),
    state: s.state,
    description: s.description,
    target_url: s.targetUrl,
    context: s.context,
    created_at: isoSeconds(s.createdAt),
    updated_at: isoSeconds(s.createdAt),
    required: false,
  };
}

/** Failure over pending over success, as GitHub combines statuses (none reported is pending). */
function combinedState(statuses: StatusRecord[]): string {
  if (statuses.some((s) => s.state === 'error' || s.state === 'failure')) return 'failure';
  if (statuses.length === 0 || statuses.some((s) => s.state === 'pending')) return 'pending';
  return 'success';
}

async function combinedStatus(r: ApiRequest): Promise<ApiResult> {
  const ref = r.params[0] ?? '';
  const sha = await commitOf(
    r,
    ref,
    `${STATUS_DOCS}#get-the-combined-status-for-a-specific-reference`,
  );
  const latest = r.state.statuses.statusesOf(r.repo.id, sha);
  const api = `${apiBase(r.state)}/repos/${r.repo.fullName}/commits`;
  const body = {
    state: combinedState(latest),
    statuses: pageOf(r.query, 100)
      .slice(latest)
      .map((s) => simpleStatus(r.state, r.repo, s)),
    sha,
    total_count: latest.length,
    repository: repository(r.state, r.repo),
    commit_url: `${api}/${sha}`,
    url: `${api}/${sha}/status`,
  };
  return { status: 200, body };
}

/** A `check-run`. */
function checkRun(state: ForgeState, repo: RepoRecord, run: CheckRunRecord) {
  const url = `${apiBase(state)}/repos/${repo.fullName}/check-runs/${String(run.id)}`;
  return {
    id: run.id,
    head_sha: run.sha,
    node_id: nodeId('CR', run.id),
    external_id: '',
    url,
    html_url: `${state.url}/${repo.fullName}/runs/${String(run.id)}`,
    details_url: run.detailsUrl,
    status: run.status,
    conclusion: run.conclusion,
    started_at: isoSeconds(run.startedAt),
    completed_at: run.completedAt === null ? null : isoSeconds(run.completedAt),
    output: {
      title: null,
      summary: null,
      text: null,
      annotations_count: 0,
      annotations_url: `${url}/annotations`,
    },
    name: run.name,
    check_suite: { id: run.id },
    app: null,
    pull_requests: [],
  };
}

async function listCheckRuns(r: ApiRequest): Promise<ApiResult> {
  const sha = await commitOf(r, r.params[0] ?? '', CHECKS_DOCS);
  const name = r.query.get('check_name');
  const status = r.query.get('status');
  const runs = r.state.statuses
    .checkRunsOf(r.repo.id, sha, r.query.get('filter') === 'all')
    .filter(
      (run) => (name === null || run.name === name) && (status === null || run.status === status),
    );
  const page = pageOf(r.query, 30).slice(runs);
  const body = {
    total_count: runs.length,
    check_runs: page.map((run) => checkRun(r.state, r.repo, run)),
  };
  return { status: 200, body };
}

async function createStatus(r: ApiRequest): Promise<ApiResult> {
  const docs = `${STATUS_DOCS}#create-a-commit-status`;
  const state = str(r.body, 'state');
  if (state === undefined || !STATES.has(state))
    throw new HttpError(422, {
      message: 'Validation Failed',
      errors: [{ resource: 'Status', field: 'state', code: 'invalid' }],
      documentation_url: docs,
      status: '422',
    });
  const sha = await commitOf(r, r.params[0] ?? '', docs);
  const record = r.state.statuses.addStatus(r.repo.id, sha, {
    context: str(r.body, 'context') ?? 'default',
    state,
    description: str(r.body, 'description') ?? null,
    targetUrl: str(r.body, 'target_url') ?? null,
    creator: r.user,
  });
  const { required: _required, ...shown } = simpleStatus(r.state, r.repo, record);
  const body = { ...shown, creator: simpleUser(r.state, r.user) };
  return { status: 201, body };
}

const REPO = '/repos/{owner}/{repo}';

/** GitHub's status and check-run routes. */
export function githubStatusRoutes(
  op: (needs: ApiOperation['needs'], docs: string, run: ApiOperation['run']) => ApiOperation,
): Route<ApiOperation>[] {
  return [
    route(
      'GET',
      `${REPO}/commits/{ref+}/status`,
      op(
        ['statuses:read'],
        `${STATUS_DOCS}#get-the-combined-status-for-a-specific-reference`,
        combinedStatus,
      ),
    ),
    route(
      'GET',
      `${REPO}/commits/{ref+}/check-runs`,
      op(['checks:read'], CHECKS_DOCS, listCheckRuns),
    ),
    route(
      'POST',
      `${REPO}/statuses/{sha}`,
      op(['statuses:write'], `${STATUS_DOCS}#create-a-commit-status`, createStatus),
    ),
  ];
}
