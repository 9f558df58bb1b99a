/**
 * GitLab's commit API subset a commit-status check uses: a single commit by sha, branch or tag
 * (`GET /projects/:id/repository/commits/:sha`), the statuses of a commit
 * (`GET .../commits/:sha/statuses`, the newest per name unless `all=true`), and setting one
 * (`POST /projects/:id/statuses/:sha`, parameters in the body or the query), key for key as the
 * documented examples recorded in test/fixtures/gitlab show them.
 */
import type { ApiOperation, ApiRequest, ApiResult } from './api.js';
import { pageOf } from './api.js';
import { gitlabError } from './gitlab-http.js';
import { gitlabUser } from './gitlab-project.js';
import { HttpError, isoMillis, route, str } from './http.js';
import type { Route } from './http.js';
import type { ForgeState } from './state.js';
import type { StatusRecord } from './statuses.js';

const STATES = new Set(['pending', 'running', 'success', 'failed', 'canceled', 'skipped']);

/** The commit `ref` names, or GitLab's 404 "Commit Not Found". */
async function commitOf(r: ApiRequest, ref: string): Promise<string> {
  const sha = ref.startsWith('-') ? undefined : await r.state.repos.resolve(r.repo, ref);
  if (sha === undefined) throw gitlabError(404, 'Commit Not Found');
  return sha;
}

/** A status's author: GitLab's user reference as the status examples show it. */
function author(state: ForgeState, username: string): Record<string, unknown> {
  const { locked: _locked, ...user } = gitlabUser(state, username);
  return user;
}

function statusBody(state: ForgeState, s: StatusRecord): Record<string, unknown> {
  return {
    id: s.id,
    sha: s.sha,
    ref: s.ref,
    status: s.state,
    name: s.context,
    target_url: s.targetUrl,
    description: s.description,
    created_at: isoMillis(s.createdAt),
    started_at: s.startedAt === null ? null : isoMillis(s.startedAt),
    finished_at: s.finishedAt === null ? null : isoMillis(s.finishedAt),
    allow_failure: s.allowFailure,
    // The documented list shows no coverage, the created status a number: absent when unknown.
    ...(s.coverage === null ? {} : { coverage: s.coverage }),
    author: author(state, s.creator),
  };
}

function commitDate(iso: string): string {
  return new Date(iso).toISOString().replace('Z', '+00:00');
}

async function getCommit(r: ApiRequest): Promise<ApiResult> {
  const sha = await commitOf(r, r.params[0] ?? '');
  const c = await r.state.repos.commitDetails(r.repo, sha);
  const parent = c.parents[0];
  const diff =
    parent === undefined ? undefined : await r.state.repos.diffStats(r.repo, parent, sha);
  const additions = diff?.additions ?? 0;
  const deletions = diff?.deletions ?? 0;
  const [title = ''] = c.message.split('\n');
  const body = {
    id: sha,
    short_id: sha.slice(0, 8),
    title,
    author_name: c.author.name,
    author_email: c.author.email,
    committer_name: c.committer.name,
    committer_email: c.committer.email,
    created_at: commitDate(c.committer.date),
    message: c.message,
    committed_date: commitDate(c.committer.date),
    authored_date: commitDate(c.author.date),
    parent_ids: c.parents,
    last_pipeline: null,
    stats: { additions, deletions, total: additions + deletions },
    status: null,
    web_url: `${r.state.url}/${r.repo.fullName}/-/commit/${sha}`,
  };
  return { status: 200, body };
}

async function listStatuses(r: ApiRequest): Promise<ApiResult> {
  const sha = await commitOf(r, r.params[0] ?? '');
  const name = r.query.get('name');
  const ref = r.query.get('ref');
  const all = r.state.statuses
    .statusesOf(r.repo.id, sha, r.query.get('all') === 'true')
    .filter((s) => (name === null || s.context === name) && (ref === null || s.ref === ref));
  const { page, perPage, slice } = pageOf(r.query, 20);
  const pages = Math.max(1, Math.ceil(all.length / perPage));
  const headers = {
    'x-page': String(page),
    'x-per-page': String(perPage),
    'x-total': String(all.length),
    'x-total-pages': String(pages),
    'x-next-page': page < pages ? String(page + 1) : '',
    'x-prev-page': page > 1 ? String(page - 1) : '',
  };
  return { status: 200, body: slice(all).map((s) => statusBody(r.state, s)), headers };
}

async function createStatus(r: ApiRequest): Promise<ApiResult> {
  // GitLab takes the parameters from the query string as well as from the body.
  const params: Record<string, unknown> = { ...Object.fromEntries(r.query), ...r.body };
  const state = str(params, 'state');
  if (state === undefined) throw new HttpError(400, { error: 'state is missing' });
  if (!STATES.has(state)) throw new HttpError(400, { error: 'state does not have a valid value' });
  const sha = await commitOf(r, r.params[0] ?? '');
  const coverage = Number(params.coverage);
  const record = r.state.statuses.addStatus(r.repo.id, sha, {
    context: str(params, 'name') ?? str(params, 'context') ?? 'default',
    state,
    description: str(params, 'description') ?? null,
    targetUrl: str(params, 'target_url') ?? null,
    ref: str(params, 'ref') ?? null,
    coverage: params.coverage === undefined || Number.isNaN(coverage) ? null : coverage,
    creator: r.user,
  });
  return { status: 201, body: statusBody(r.state, record) };
}

/** GitLab's commit and status routes. */
export function gitlabStatusRoutes(
  op: (needs: ApiOperation['needs'], run: ApiOperation['run']) => ApiOperation,
): Route<ApiOperation>[] {
  const commits = '/projects/{id}/repository/commits/{sha}';
  return [
    route('GET', commits, op(['repo:read'], getCommit)),
    route('GET', `${commits}/statuses`, op(['statuses:read'], listStatuses)),
    route('POST', '/projects/{id}/statuses/{sha}', op(['statuses:write'], createStatus)),
  ];
}
