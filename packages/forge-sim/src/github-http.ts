/**
 * How GitHub answers over HTTP: the headers every REST response carries, its error bodies
 * (`message`, `documentation_url`, `status`), and its rate-limit answers (primary: 403 with
 * `x-ratelimit-remaining: 0`; secondary: 429 or 403 with `retry-after`).
 */
import { randomBytes } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { ApiOperation, ApiResult } from './api.js';
import type { Injected } from './faults.js';
import type { Route } from './http.js';
import { HttpError, parseParams, readBody, sendJson } from './http.js';
import type { ForgeState } from './state.js';
import { presentedToken } from './state.js';
import { decide } from './tokens.js';

/** The REST documentation root GitHub names in generic errors. */
export const GITHUB_DOCS = 'https://docs.github.com/rest';
const RATE_DOCS = `${GITHUB_DOCS}/overview/rate-limits-for-the-rest-api`;

/** A request id shaped like GitHub's `x-github-request-id`. */
function requestId(): string {
  const hex = randomBytes(10).toString('hex').toUpperCase();
  return `${hex.slice(0, 4)}:${hex.slice(4, 8)}:${hex.slice(8, 14)}:${hex.slice(14, 20)}:${hex.slice(0, 8)}`;
}

/** Headers of every GitHub REST answer; rate-limit headers show a fresh, unexhausted budget. */
export function githubHeaders(now: number): OutgoingHttpHeaders {
  return {
    'x-github-request-id': requestId(),
    'x-github-api-version-selected': '2022-11-28',
    'x-github-media-type': 'github.v3; format=json',
    'x-ratelimit-limit': '5000',
    'x-ratelimit-remaining': '4999',
    'x-ratelimit-reset': String(Math.floor(now / 1000) + 3600),
    'x-ratelimit-used': '1',
    'x-ratelimit-resource': 'core',
    'x-content-type-options': 'nosniff',
    server: 'GitHub.com',
  };
}

/** GitHub's error body. */
export function githubError(status: number, message: string, docs = GITHUB_DOCS): HttpError {
  return new HttpError(status, { message, documentation_url: docs, status: String(status) });
}

/** GitHub's 422 "Validation Failed" with one error entry. */
export function validationFailed(docs: string, error: Record<string, string>): HttpError {
  return new HttpError(422, {
    message: 'Validation Failed',
    errors: [{ resource: 'PullRequest', ...error }],
    documentation_url: docs,
    status: '422',
  });
}

function send(res: ServerResponse, now: number, result: ApiResult): void {
  sendJson(res, result.status, result.body, { ...githubHeaders(now), ...result.headers });
}

/** Authenticates, authorises, parses the body and runs one matched GitHub route. */
export async function serveGithub(
  state: ForgeState,
  match: { route: Route<ApiOperation>; params: string[] },
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const now = state.now();
  const op = match.route.handler;
  try {
    const presented = presentedToken(req.headers);
    const token = presented === undefined ? undefined : state.tokens.lookup(presented);
    if (presented !== undefined && token === undefined) throw githubError(401, 'Bad credentials');
    const [owner = '', name = '', ...params] = match.params;
    const repo = state.repos.get(`${owner}/${name}`);
    const grants = token === undefined ? undefined : state.tokens.grants(token, `${owner}/${name}`);
    // Private repositories are invisible to anonymous callers and to tokens without access.
    const verdict = repo === undefined ? 'hidden' : decide(grants, op.needs);
    if (verdict === 'hidden' || repo === undefined || token === undefined || grants === undefined)
      throw githubError(404, 'Not Found', op.docs);
    if (verdict === 'forbidden')
      throw githubError(403, 'Resource not accessible by personal access token', op.docs);
    const raw = await readBody(req);
    const body = req.method === 'GET' ? {} : parseParams(raw, req.headers['content-type']);
    const query = new URL(req.url ?? '/', 'http://x').searchParams;
    send(res, now, await op.run({ state, repo, params, query, body, user: token.name, grants }));
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    send(res, now, { status: err.status, body: err.body, headers: err.headers });
  }
}

/** GitHub's answer to an injected fault on a REST call. */
export function githubFault(res: ServerResponse, injected: Injected, now: number): void {
  const headers = githubHeaders(now);
  const id = String(headers['x-github-request-id']);
  if (injected.kind === 'error') {
    const { code, retryAfterSeconds } = injected.fault;
    const body = { message: STATUS_CODES[code] ?? 'Server Error', documentation_url: GITHUB_DOCS };
    const extra =
      retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) };
    sendJson(res, code, { ...body, status: String(code) }, { ...headers, ...extra });
    return;
  }
  const f = injected.fault;
  const wait = f.retryAfterSeconds ?? 60;
  if (f.style === 'secondary') {
    const status = f.status ?? 429;
    const message = `You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID ${id}.`;
    const body = { message, documentation_url: `${RATE_DOCS}#about-secondary-rate-limits` };
    sendJson(
      res,
      status,
      { ...body, status: String(status) },
      { ...headers, 'retry-after': String(wait) },
    );
    return;
  }
  const reset = Math.floor(now / 1000) + wait;
  const message = `API rate limit exceeded for user ID 1. If you reach out to GitHub Support for help, please include the request ID ${id} and timestamp ${new Date(now).toISOString().slice(0, 19).replace('T', ' ')} UTC.`;
  sendJson(
    res,
    403,
    { message, documentation_url: RATE_DOCS, status: '403' },
    {
      ...headers,
      'x-ratelimit-remaining': '0',
      'x-ratelimit-used': '5000',
      'x-ratelimit-reset': String(reset),
    },
  );
}

/** GitHub's 404 for a REST path it does not serve. */
export function githubUnmatched(res: ServerResponse, now: number): void {
  send(res, now, {
    status: 404,
    body: { message: 'Not Found', documentation_url: GITHUB_DOCS, status: '404' },
  });
}

/** GitHub's 500. */
export function githubInternal(res: ServerResponse, now: number): void {
  send(res, now, {
    status: 500,
    body: { message: 'Server Error', documentation_url: GITHUB_DOCS, status: '500' },
  });
}
