/**
 * The shape both REST fronts share: a route table whose entries say what the call needs from
 * the token, and the merge action (the forge's merge button) used by the REST merge calls and
 * by `forge.merge()` alike.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Injected } from './faults.js';
import type { Route } from './http.js';
import { str } from './http.js';
import type { MergeMethod, PullRecord } from './pulls.js';
import { landPull } from './pulls.js';
import type { RepoRecord } from './repos.js';
import type { ForgeState } from './state.js';
import type { Need } from './tokens.js';

/** One authorised REST call, ready for its handler. */
export interface ApiRequest {
  state: ForgeState;
  repo: RepoRecord;
  /** Route parameters after the repository ones. */
  params: string[];
  query: URLSearchParams;
  body: Record<string, unknown>;
  /** The token owner making the call. */
  user: string;
  grants: Set<Need>;
}

/** What a handler answers. */
export interface ApiResult {
  status: number;
  body: unknown;
  headers?: OutgoingHttpHeaders;
}

/** A REST operation: what it needs from the token, and what it does. */
export interface ApiOperation {
  needs: Need[];
  /** GitHub's documentation_url for this operation (GitLab bodies have none). */
  docs: string;
  run(r: ApiRequest): Promise<ApiResult>;
}

/** A forge's REST front. */
export interface ApiFront {
  /** '/api/v3' or '/api/v4'. */
  prefix: string;
  routes: Route<ApiOperation>[];
  /** Authenticates, authorises and runs a matched route. */
  serve(
    state: ForgeState,
    match: { route: Route<ApiOperation>; params: string[] },
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<void>;
  /** The forge's answer for a path no route matches. */
  unmatched(res: ServerResponse, now: number): void;
  /** The forge's answer for an injected fault (rate limit or error) on a REST call. */
  fault(res: ServerResponse, injected: Injected, now: number): void;
  /** The forge's answer for an unexpected failure. */
  internalError(res: ServerResponse, now: number): void;
}

/** Options of a merge through the forge. */
export interface LandOptions {
  method: MergeMethod;
  sha?: string;
  /** Who merges (a forge user name). */
  by: string;
  /** Overrides the merge or squash commit message. */
  message?: string;
}

/** The merge or squash commit message each forge writes by default. */
export function defaultMergeMessage(
  state: ForgeState,
  repo: RepoRecord,
  pull: PullRecord,
  method: MergeMethod,
): string {
  if (state.kind === 'github') {
    if (method === 'squash')
      return `${pull.title} (#${String(pull.number)})${pull.body === '' ? '' : `\n\n${pull.body}`}\n`;
    return `Merge pull request #${String(pull.number)} from ${repo.namespace}/${pull.head}\n\n${pull.title}\n`;
  }
  if (method === 'squash') return `${pull.title}\n`;
  return `Merge branch '${pull.head}' into '${pull.base}'\n\n${pull.title}\n\nSee merge request ${repo.fullName}!${String(pull.number)}\n`;
}

/** Merges `pull` onto its base (a real commit) and records it as merged; returns the new base. */
export async function mergeThroughForge(
  state: ForgeState,
  repo: RepoRecord,
  pull: PullRecord,
  opts: LandOptions,
): Promise<string> {
  const message = opts.message ?? defaultMergeMessage(state, repo, pull, opts.method);
  const landOpts = { method: opts.method, sha: opts.sha, message };
  const [sha, head, base] = await landPull(state.repos, repo, pull, landOpts);
  state.pulls.markMerged(pull, sha, head, base, opts.by);
  repo.pushedAt = state.now();
  return sha;
}

/** The `page` and `per_page` query parameters (1-based, at most 100 a page), and that page. */
export function pageOf(
  query: URLSearchParams,
  defaultPerPage: number,
): { page: number; perPage: number; slice: <T>(items: T[]) => T[] } {
  const wanted = Number(query.get('per_page') ?? defaultPerPage) || defaultPerPage;
  const perPage = Math.min(100, Math.max(1, wanted));
  const page = Math.max(1, Number(query.get('page') ?? '1') || 1);
  return { page, perPage, slice: (items) => items.slice((page - 1) * perPage, page * perPage) };
}

/** Opens a pull request from `head` onto `base`, titled and described by the request's body. */
export function openPull(
  r: ApiRequest,
  head: string,
  base: string,
  descriptionKey: 'body' | 'description',
): PullRecord {
  const title = str(r.body, 'title') ?? '';
  const body = str(r.body, descriptionKey) ?? '';
  return r.state.pulls.create(r.repo, { title, body, head, base, author: r.user });
}
