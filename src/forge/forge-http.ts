/**
 * One REST call to a forge, and what the GitHub and GitLab dialects share: a call's answer is
 * its JSON or a classified failure (forge-answers.ts); transport errors become Timeout or
 * Unreachable. No message carries the token, the URL or a response body.
 */
import type { FetchLike } from '../outbound/fetch-like.js';
import type { ForgeFailure, ForgeKind } from './forge-answers.js';
import { classifyForgeAnswer } from './forge-answers.js';
import type { PullRequestRef, PullRequestText } from './forge-model.js';

/** A REST call, relative to the API root; `query` and `body` are encoded by the caller. */
export interface ForgeRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT';
  path: string;
  query?: Record<string, string>;
  body?: Record<string, unknown>;
  /** Names the call in messages, e.g. "opening the pull request". */
  what: string;
}

/**
 * A call's answer. A refusal keeps the body of a 409 or 422, the statuses by which the forges
 * say "one is open already", so the dialect can tell that race from other refusals.
 */
export type ForgeAnswer =
  | { ok: true; json: unknown }
  | { ok: false; failure: ForgeFailure; status?: number; body?: unknown };

/** Sends calls to one forge's API with one token. */
export type ForgeCall = (request: ForgeRequest) => Promise<ForgeAnswer>;

/** What differs between GitHub and GitLab: routes, bodies, and how answers read. */
export interface ForgeDialect {
  readonly kind: ForgeKind;
  /** 'pull request' or 'merge request', for messages. */
  readonly noun: string;
  /** The headers that carry the token (and the API version GitHub wants). */
  headers(token: string): Record<string, string>;
  listOpen(branch: string): ForgeRequest;
  create(branch: string, text: PullRequestText): ForgeRequest;
  update(number: number, text: PullRequestText): ForgeRequest;
  get(number: number): ForgeRequest;
  /** True when a refused creation says a request for the branch is open already. */
  alreadyOpen(status: number, body: unknown): boolean;
  /** The request an answer describes, or undefined when it lacks what the status needs. */
  read(json: unknown): PullRequestRef | undefined;
}

/** How `forgeCall` reaches the forge. */
export interface ForgeCallOptions {
  kind: ForgeKind;
  apiUrl: string;
  headers: Record<string, string>;
  fetch: FetchLike;
  now: () => number;
  timeoutMs: number;
  /** Aborts every call too (an attempt's deadline). */
  signal?: AbortSignal;
}

/** A `ForgeCall` bound to one API root and one set of auth headers. */
export function forgeCall(options: ForgeCallOptions): ForgeCall {
  return async (request) => {
    const url = new URL(options.apiUrl + request.path);
    for (const [key, value] of Object.entries(request.query ?? {})) {
      url.searchParams.set(key, value);
    }
    const timeout = AbortSignal.timeout(options.timeoutMs);
    const signal =
      options.signal === undefined ? timeout : AbortSignal.any([timeout, options.signal]);
    try {
      const response = await options.fetch(url.href, init(options, request, signal));
      return await answer(options, request.what, response);
    } catch (err) {
      return { ok: false, failure: transportFailure(options.kind, request.what, err) };
    }
  };
}

function init(options: ForgeCallOptions, request: ForgeRequest, signal: AbortSignal): RequestInit {
  const headers: Record<string, string> = { ...options.headers, 'user-agent': 'promotion-gateway' };
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  return {
    method: request.method,
    headers,
    ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
    // A redirect could carry the token to a host the spec never named.
    redirect: 'manual',
    signal,
  };
}

async function answer(
  options: ForgeCallOptions,
  what: string,
  response: Response,
): Promise<ForgeAnswer> {
  const { status, headers } = response;
  const failure = classifyForgeAnswer(options.kind, status, headers, what, options.now());
  if (failure === undefined) {
    try {
      return { ok: true, json: await response.json() };
    } catch (err) {
      // Only a body that is not JSON is the forge's answer; a cut connection is transport.
      if (!(err instanceof SyntaxError)) throw err;
      return { ok: false, failure: malformed(options.kind, what) };
    }
  }
  if (status !== 409 && status !== 422) {
    await response.body?.cancel().catch(() => undefined);
    return { ok: false, failure, status };
  }
  const body: unknown = await response.json().catch(() => undefined);
  return { ok: false, failure, status, body };
}

/** The forge's name as messages write it. */
export function forgeName(kind: ForgeKind): string {
  return kind === 'github' ? 'GitHub' : 'GitLab';
}

function isTimeout(err: unknown): boolean {
  return err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
}

function transportFailure(kind: ForgeKind, what: string, err: unknown): ForgeFailure {
  if (isTimeout(err)) {
    const message = `${forgeName(kind)} did not answer in time ${what}; will retry`;
    return { reason: 'Timeout', message, retryable: true };
  }
  // Transport errors can quote the URL, so none of their text is kept.
  const message = `${forgeName(kind)} could not be reached ${what}; will retry`;
  return { reason: 'Unreachable', message, retryable: true };
}

/**
 * An answer that is not what the API documents: not retried, as it is most likely an `apiUrl`
 * or proxy that is not the forge's API, which waiting does not fix.
 */
export function malformed(kind: ForgeKind, what: string): ForgeFailure {
  const message = `${forgeName(kind)} answered ${what} with something that is not its API's JSON; check the repository URL`;
  return { reason: 'Invalid', message, retryable: false };
}

/** `value` as a plain object, or undefined. */
export function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** A request number as the forges write it: a positive integer. */
export function requestNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

/** A web page URL (http or https, no credentials), or undefined. */
export function pageUrl(value: unknown): string | undefined {
  if (typeof value !== 'string' || !URL.canParse(value)) return undefined;
  const url = new URL(value);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  return url.username === '' && url.password === '' ? value : undefined;
}

/** A request built from a number, a page URL and a state, when all three are valid. */
export function pullRequestRef(
  number: unknown,
  url: unknown,
  state: PullRequestRef['state'] | undefined,
): PullRequestRef | undefined {
  const n = requestNumber(number);
  const page = pageUrl(url);
  if (n === undefined || page === undefined || state === undefined) return undefined;
  return { number: n, url: page, state };
}
