/**
 * The forge side of the pull-request strategy: a `ForgeClient` for the spec's repository, which
 * opens the promotion's pull (merge) request or updates the one already open for its branch, and
 * reads a request's state. GitHub and GitLab differ only in their dialect (github.ts, gitlab.ts).
 */
import type { FetchLike } from '../outbound/fetch-like.js';
import type { ForgeFailure, ForgeKind } from './forge-answers.js';
import type { ForgeCall, ForgeDialect, ForgeRequest } from './forge-http.js';
import { forgeCall, forgeName, malformed, requestNumber } from './forge-http.js';
import { githubDialect } from './github.js';
import { gitlabDialect } from './gitlab.js';
import { repositoryUrl } from './repository.js';
import type {
  ForgeClient,
  ForgeCredentials,
  ForgeResult,
  PullRequestRef,
  PullRequestText,
  RepositoryRef,
} from './forge-model.js';

/** What `forgeClient` may be given besides the repository and token; all optional. */
export interface ForgeClientOptions {
  fetch?: FetchLike;
  now?: () => number;
  /** Per call; default 15 s. */
  timeoutMs?: number;
  /** The REST root, when it is not where the repository's URL says (see `repositoryApi`). */
  apiUrl?: string;
  /** Aborts every call too (an attempt's deadline), besides each one's own limit. */
  signal?: AbortSignal;
}

/** Where a repository's REST API is, as `repositoryApi` derives it. */
export interface RepositoryApi {
  /** The REST root without a trailing slash, e.g. https://api.github.com. */
  apiUrl: string;
  /** `owner/repo`, or GitLab's `group/subgroup/project`, decoded. */
  fullPath: string;
}

const DEFAULT_TIMEOUT_MS = 15_000;

/**
 * A client for `repository` that calls its forge with `credentials.token`, or an Invalid
 * failure (not retryable) when the repository URL, the API URL or the token cannot be used.
 * Tell them apart with `'reason' in result`, as the strategy's `forge` port does.
 */
export function forgeClient(
  repository: RepositoryRef,
  credentials: ForgeCredentials,
  options: ForgeClientOptions = {},
): ForgeClient | ForgeFailure {
  const api = repositoryApi(repository, options.apiUrl);
  if (!api.ok) return api.failure;
  if (repository.baseBranch === '') return invalid(repository.kind, 'names no base branch');
  // A token with a line break or a space would fail in fetch as if the forge were unreachable,
  // and be retried for ever; say what is wrong instead.
  if (!/^[\x21-\x7e]+$/.test(credentials.token))
    return invalid(repository.kind, "Secret's token is empty or holds spaces or line breaks");
  const dialect = dialectFor(repository.kind, api.value.fullPath, repository.baseBranch);
  const call = forgeCall({
    kind: repository.kind,
    apiUrl: api.value.apiUrl,
    headers: dialect.headers(credentials.token),
    fetch: options.fetch ?? ((url, init) => fetch(url, init)),
    now: options.now ?? Date.now,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  return {
    openOrUpdate: (branch, text) => openOrUpdate(call, dialect, branch, text),
    get: (number) => getRequest(call, dialect, number),
  };
}

/**
 * The REST root and repository path that `repository.url` names: github.com's API is
 * api.github.com, any other GitHub host's (Enterprise Server) `{origin}/api/v3`, a GitLab's
 * `{origin}/api/v4`; `apiUrl` overrides the root. URLs with credentials, a query or a
 * fragment, or without an owner and a name, are refused.
 */
export function repositoryApi(
  repository: RepositoryRef,
  apiUrl?: string,
): ForgeResult<RepositoryApi> {
  const { kind } = repository;
  const url = repositoryUrl(repository.url);
  if (typeof url === 'string') return failed(invalid(kind, `repository URL ${url}`));
  const segments = pathSegments(url.pathname);
  const expected = kind === 'github' ? 'https://host/owner/repo' : 'https://host/group/project';
  if (segments === undefined || segments.length < 2 || (kind === 'github' && segments.length > 2))
    return failed(invalid(kind, `repository URL names no repository: expected ${expected}`));
  const root = apiUrl === undefined ? derivedApiUrl(kind, url) : repositoryUrl(apiUrl);
  if (typeof root === 'string') return failed(invalid(kind, `API URL ${root}`));
  const value = { apiUrl: root.href.replace(/\/+$/, ''), fullPath: segments.join('/') };
  return { ok: true, value };
}

/** weave's title and body, so tools that read weave's promotion requests read ours too. */
export function pullRequestText(
  namespace: string,
  pipeline: string,
  environment: string,
  revision: string,
): PullRequestText {
  const intro = `Sets the values marked for ${namespace}/${pipeline} in ${environment} to ${revision}.`;
  // Byte for byte what weave's pipeline-controller writes: tooling finds promotions by it.
  const metadata = `<details>
<summary>metadata</summary>
!!! DO NOT EDIT !!!

${namespace}/${pipeline}/${environment}
</details>`;
  return {
    title: `Promote ${namespace}/${pipeline} in ${environment} to ${revision}`,
    body: `${intro}\n\n${metadata}`,
  };
}

function dialectFor(kind: ForgeKind, fullPath: string, baseBranch: string): ForgeDialect {
  if (kind === 'gitlab') return gitlabDialect(fullPath, baseBranch);
  const [owner = '', repo = ''] = fullPath.split('/');
  return githubDialect(owner, repo, baseBranch);
}

/** An http(s) URL without credentials, query or fragment; else why not (never the URL itself). */
/** The decoded path segments less a trailing `.git`, or undefined if one is empty or odd. */
function pathSegments(pathname: string): string[] | undefined {
  const path = pathname.replace(/\/+$/, '').replace(/\.git$/, '');
  const segments = path.split('/').slice(1);
  try {
    const decoded = segments.map((s) => decodeURIComponent(s));
    return decoded.every((s) => s !== '' && !s.includes('/')) ? decoded : undefined;
  } catch {
    return undefined;
  }
}

function derivedApiUrl(kind: ForgeKind, url: URL): URL {
  if (kind === 'gitlab') return new URL('/api/v4', url.origin);
  if (url.hostname === 'github.com' || url.hostname === 'www.github.com')
    return new URL('https://api.github.com');
  return new URL('/api/v3', url.origin);
}

function invalid(kind: ForgeKind, problem: string): ForgeFailure {
  const message = `the ${forgeName(kind)} pull-request spec's ${problem}`;
  return { reason: 'Invalid', message, retryable: false };
}

function failed(failure: ForgeFailure): { ok: false; failure: ForgeFailure } {
  return { ok: false, failure };
}

/** Opens the request for `branch`, or updates the open one; a lost creation race updates. */
async function openOrUpdate(
  call: ForgeCall,
  dialect: ForgeDialect,
  branch: string,
  text: PullRequestText,
): Promise<ForgeResult<{ request: PullRequestRef; created: boolean }>> {
  const found = await findOpen(call, dialect, branch);
  if (!found.ok) return found;
  if (found.value !== undefined) return update(call, dialect, found.value.number, text);
  const request = dialect.create(branch, text);
  const answer = await call(request);
  if (answer.ok) return labelled(read(dialect, request, answer.json), true);
  if (answer.status === undefined || !dialect.alreadyOpen(answer.status, answer.body))
    return failed(answer.failure);
  // Another replica (or a person) opened it between our list and our create: update theirs.
  const raced = await findOpen(call, dialect, branch);
  if (!raced.ok) return raced;
  if (raced.value !== undefined) return update(call, dialect, raced.value.number, text);
  const forge = forgeName(dialect.kind);
  const message = `${forge} said a ${dialect.noun} for the branch is open, but lists none; will retry`;
  return failed({ reason: 'ForgeUnavailable', message, retryable: true });
}

async function update(
  call: ForgeCall,
  dialect: ForgeDialect,
  number: number,
  text: PullRequestText,
): Promise<ForgeResult<{ request: PullRequestRef; created: boolean }>> {
  const request = dialect.update(number, text);
  const answer = await call(request);
  if (!answer.ok) return failed(answer.failure);
  return labelled(read(dialect, request, answer.json), false);
}

function labelled(
  result: ForgeResult<PullRequestRef>,
  created: boolean,
): ForgeResult<{ request: PullRequestRef; created: boolean }> {
  return result.ok ? { ok: true, value: { request: result.value, created } } : result;
}

/** The open request from `branch` into the base, if any. */
async function findOpen(
  call: ForgeCall,
  dialect: ForgeDialect,
  branch: string,
): Promise<ForgeResult<PullRequestRef | undefined>> {
  const request = dialect.listOpen(branch);
  const answer = await call(request);
  if (!answer.ok) return failed(answer.failure);
  if (!Array.isArray(answer.json)) return failed(malformed(dialect.kind, request.what));
  const [first] = answer.json as unknown[];
  if (first === undefined) return { ok: true, value: undefined };
  return read(dialect, request, first);
}

async function getRequest(
  call: ForgeCall,
  dialect: ForgeDialect,
  number: number,
): Promise<ForgeResult<PullRequestRef>> {
  if (requestNumber(number) === undefined) {
    const message = `${String(number)} is not a ${dialect.noun} number`;
    return failed({ reason: 'Invalid', message, retryable: false });
  }
  const request = dialect.get(number);
  const answer = await call(request);
  return answer.ok ? read(dialect, request, answer.json) : failed(answer.failure);
}

function read(
  dialect: ForgeDialect,
  request: ForgeRequest,
  json: unknown,
): ForgeResult<PullRequestRef> {
  const ref = dialect.read(json);
  return ref === undefined
    ? failed(malformed(dialect.kind, request.what))
    : { ok: true, value: ref };
}
