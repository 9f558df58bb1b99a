/**
 * How GitLab answers over HTTP: `{"message": "401 Unauthorized"}`-style error bodies, the
 * insufficient-scope 403 of its token checks, and its throttle answer (429, `Retry later`, with
 * `Retry-After` and the `RateLimit-*` headers).
 */
import { randomBytes } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { ApiOperation, ApiResult } from './api.js';
import type { Injected } from './faults.js';
import type { Route } from './http.js';
import { HttpError, parseParams, readBody, sendJson, sendText } from './http.js';
import type { RepoRecord } from './repos.js';
import type { ForgeState } from './state.js';
import { presentedToken } from './state.js';
import { decide } from './tokens.js';

/** Headers of every GitLab REST answer. */
export function gitlabHeaders(): OutgoingHttpHeaders {
  const id = randomBytes(13).toString('hex').toUpperCase();
  return {
    'x-request-id': id,
    'x-gitlab-meta': JSON.stringify({ correlation_id: id, version: '1' }),
    'x-runtime': '0.012345',
    'cache-control': 'max-age=0, private, must-revalidate',
    'x-content-type-options': 'nosniff',
    vary: 'Origin, Accept-Encoding',
  };
}

/** GitLab's `{"message": "<code> <text>"}` error. */
export function gitlabError(status: number, text?: string): HttpError {
  return new HttpError(status, {
    message: `${String(status)} ${text ?? STATUS_CODES[status] ?? 'Error'}`,
  });
}

function send(res: ServerResponse, result: ApiResult): void {
  sendJson(res, result.status, result.body, { ...gitlabHeaders(), ...result.headers });
}

function findProject(state: ForgeState, id: string): RepoRecord | undefined {
  return /^\d+$/.test(id) ? state.repos.getById(Number(id)) : state.repos.get(id);
}

/** Authenticates, authorises, parses the body and runs one matched GitLab route. */
export async function serveGitlab(
  state: ForgeState,
  match: { route: Route<ApiOperation>; params: string[] },
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const op = match.route.handler;
  try {
    const presented = presentedToken(req.headers);
    const token = presented === undefined ? undefined : state.tokens.lookup(presented);
    if (presented !== undefined && token === undefined) throw gitlabError(401, 'Unauthorized');
    const [id = '', ...params] = match.params;
    const repo = findProject(state, id);
    const grants =
      repo === undefined || token === undefined
        ? undefined
        : state.tokens.grants(token, repo.fullName);
    const verdict = repo === undefined ? 'hidden' : decide(grants, op.needs);
    if (verdict === 'hidden' || repo === undefined || token === undefined || grants === undefined)
      throw gitlabError(404, 'Project Not Found');
    if (verdict === 'forbidden')
      throw new HttpError(403, {
        error: 'insufficient_scope',
        error_description:
          'The request requires higher privileges than provided by the access token.',
        scope: 'api',
      });
    const raw = await readBody(req);
    const body = req.method === 'GET' ? {} : parseParams(raw, req.headers['content-type']);
    const query = new URL(req.url ?? '/', 'http://x').searchParams;
    send(res, await op.run({ state, repo, params, query, body, user: token.name, grants }));
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    send(res, { status: err.status, body: err.body, headers: err.headers });
  }
}

/** GitLab's answer to an injected fault on a REST call. */
export function gitlabFault(res: ServerResponse, injected: Injected, now: number): void {
  if (injected.kind === 'error') {
    const { code, retryAfterSeconds } = injected.fault;
    const extra =
      retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) };
    send(res, { status: code, body: gitlabError(code).body, headers: extra });
    return;
  }
  const wait = injected.fault.retryAfterSeconds ?? 60;
  const reset = Math.floor(now / 1000) + wait;
  sendText(res, 429, 'Retry later\n', {
    ...gitlabHeaders(),
    'Retry-After': String(wait),
    'RateLimit-Name': 'throttle_authenticated_api',
    'RateLimit-Limit': '2000',
    'RateLimit-Observed': '2001',
    'RateLimit-Remaining': '0',
    'RateLimit-Reset': String(reset),
    'RateLimit-ResetTime': new Date(reset * 1000).toUTCString(),
  });
}

/** GitLab's 404 for a path it does not serve. */
export function gitlabUnmatched(res: ServerResponse): void {
  send(res, { status: 404, body: { error: '404 Not Found' } });
}

/** GitLab's 500. */
export function gitlabInternal(res: ServerResponse): void {
  send(res, { status: 500, body: { message: '500 Internal Server Error' } });
}
