/**
 * isomorphic-git's HTTP transport over Node's global fetch, with the time limit its bundled Node
 * client lacks, and what an error of a Git exchange (an HTTP answer, a push refusal, no answer
 * at all) means for a promotion.
 */
import { Errors, type GitHttpRequest, type GitHttpResponse, type HttpClient } from 'isomorphic-git';
import {
  classifyForgeAnswer,
  type ForgeFailure,
  type ForgeKind,
} from '../../../forge/forge-answers.js';

/** How long one Git request (its answer's body included) may take by default. */
export const DEFAULT_GIT_TIMEOUT_MS = 30_000;

/** Options of the Git transport. */
export interface GitHttpOptions {
  /** Limit for one request, from sending it to the last byte of its answer. Default 30 s. */
  timeoutMs?: number;
  /** The fetch to call (tests wrap it to watch the protocol). Default: the global fetch. */
  fetch?: typeof fetch;
  /** Aborts every request too (an attempt's deadline), besides each one's own limit. */
  signal?: AbortSignal;
}

async function collect(body: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks);
}

async function* chunksOf(stream: ReadableStream<Uint8Array> | null): AsyncGenerator<Uint8Array> {
  if (stream === null) return;
  for await (const chunk of stream) yield chunk;
}

/**
 * An isomorphic-git HTTP client that aborts each request after `timeoutMs` (a hung forge must
 * not hold a promotion forever). Request bodies are sent whole: some Git servers need a
 * Content-Length, and isomorphic-git builds them in memory anyway.
 */
export function gitHttpClient(options: GitHttpOptions = {}): HttpClient {
  const timeoutMs = options.timeoutMs ?? DEFAULT_GIT_TIMEOUT_MS;
  const send = options.fetch ?? fetch;
  return {
    async request(req: GitHttpRequest): Promise<GitHttpResponse> {
      const method = req.method ?? 'GET';
      const body = req.body === undefined ? undefined : await collect(req.body);
      const signals = [AbortSignal.timeout(timeoutMs), req.signal, options.signal].filter(
        (s): s is AbortSignal => s !== undefined,
      );
      const res = await send(req.url, {
        method,
        headers: { 'user-agent': 'git/isomorphic-git (promotion-gateway)', ...req.headers },
        body,
        signal: signals.length === 1 ? signals[0] : AbortSignal.any(signals),
      });
      return {
        url: res.url || req.url,
        method,
        statusCode: res.status,
        statusMessage: res.statusText,
        headers: Object.fromEntries(res.headers),
        body: chunksOf(res.body),
      };
    },
  };
}

/** Node's words for "no route to that host": nothing was sent, so trying later may work. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENETDOWN',
]);
const TIMED_OUT = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT']);
const BROKEN = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

/**
 * The names and codes along an error's causes: fetch reports "fetch failed" with the socket's
 * error as `cause`, and a connection tried on several addresses as an AggregateError.
 */
function errorTraits(error: unknown): { names: Set<string>; codes: Set<string> } {
  const names = new Set<string>();
  const codes = new Set<string>();
  const queue: unknown[] = [error];
  for (let i = 0; i < queue.length && i < 16; i++) {
    const e = queue[i];
    if (typeof e !== 'object' || e === null) continue;
    const { name, code, cause, errors } = e as Record<string, unknown>;
    if (typeof name === 'string') names.add(name);
    if (typeof code === 'string') codes.add(code);
    queue.push(cause, ...(Array.isArray(errors) ? (errors as unknown[]) : []));
  }
  return { names, codes };
}

function firstOf(codes: Set<string>, known: Set<string>): string | undefined {
  return [...codes].find((code) => known.has(code));
}

function forgeName(kind: ForgeKind): string {
  return kind === 'github' ? 'GitHub' : 'GitLab';
}

/** The failure a transport error means, or undefined when `error` is not one. */
function transportFailure(error: unknown, kind: ForgeKind, what: string): ForgeFailure | undefined {
  const forge = forgeName(kind);
  const { names, codes } = errorTraits(error);
  if (names.has('TimeoutError') || firstOf(codes, TIMED_OUT) !== undefined) {
    const message = `${forge} did not answer in time ${what}; will retry`;
    return { reason: 'Timeout', message, retryable: true };
  }
  const unreachable = firstOf(codes, UNREACHABLE);
  if (unreachable !== undefined) {
    const message = `${forge} could not be reached ${what} (${unreachable}); will retry`;
    return { reason: 'Unreachable', message, retryable: true };
  }
  const broken = firstOf(codes, BROKEN);
  if (broken !== undefined) {
    const message = `the connection to ${forge} broke ${what} (${broken}); will retry`;
    return { reason: 'ForgeUnavailable', message, retryable: true };
  }
  return undefined;
}

/** The failure a push refusal means: a protection hook, or a ref update that did not happen. */
function refused(
  error: InstanceType<typeof Errors.GitPushError>,
  kind: ForgeKind,
  branch: string,
): ForgeFailure {
  const forge = forgeName(kind);
  const { result } = error.data;
  // The forge's short reason (git's "(protected branch hook declined)"), on one bounded line.
  const said = result.refs[`refs/heads/${branch}`]?.error ?? result.error ?? 'no reason given';
  const reason = said.split('\n', 1)[0]?.slice(0, 200) ?? '';
  if (/protected|hook declined/i.test(reason)) {
    const message = `${forge} refused the push to branch ${branch}: "${reason}"`;
    return { reason: 'BranchProtected', message, retryable: false };
  }
  const message = `${forge} did not update branch ${branch}: "${reason}"; will retry`;
  return { reason: 'ForgeUnavailable', message, retryable: true };
}

/**
 * What an error thrown by isomorphic-git at `step` ("fetching branch main") means. Messages
 * name the forge, the step and status codes or error codes, never the token, the error's own
 * text or an answer's body; an unknown error is taken as the forge's, worth retrying.
 */
export function gitFailure(
  error: unknown,
  kind: ForgeKind,
  branch: string,
  step: string,
  now: number,
): ForgeFailure {
  const forge = forgeName(kind);
  if (error instanceof Errors.GitPushError) return refused(error, kind, branch);
  if (error instanceof Errors.HttpError) {
    const answer = classifyForgeAnswer(kind, error.data.statusCode, new Headers(), step, now);
    if (answer !== undefined) return answer;
  }
  if (error instanceof Errors.SmartHttpError) {
    const message = `${forge} did not answer as a Git server ${step}: check the repository URL`;
    return { reason: 'Invalid', message, retryable: false };
  }
  const transport = transportFailure(error, kind, step);
  if (transport !== undefined) return transport;
  const code = (error as { code?: unknown } | null)?.code;
  const what = typeof code === 'string' ? code : error instanceof Error ? error.name : 'unknown';
  const message = `Git over HTTP to ${forge} failed ${step} (${what}); will retry`;
  return { reason: 'ForgeUnavailable', message, retryable: true };
}
