/**
 * Git smart HTTP for the forge's bare repositories, served by `git http-backend` (CGI): the real
 * protocol (v0, v1 and v2, shallow fetches, filters) with the forge's own front door: Basic auth
 * with a token as password, "not found" for repositories a token cannot see, 403 for pushes it
 * may not make, and protected branches refused like the forge's pre-receive check.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody, sendText } from './http.js';
import type { PushCommands } from './receive-pack.js';
import { parseCommands, plainBody, refusal } from './receive-pack.js';
import type { RepoRecord } from './repos.js';
import type { ForgeState } from './state.js';
import { presentedToken } from './state.js';
import { decide } from './tokens.js';

/** A Git smart HTTP request. */
export interface GitRequest {
  /** Repository path without `.git`. */
  repoPath: string;
  service: 'git-upload-pack' | 'git-receive-pack';
  /** 'info/refs' (advertisement) or the service itself (the RPC). */
  suffix: string;
  /** Route template the request is counted under. */
  route: string;
}

/** Pushes are buffered whole (to read their commands first); anything bigger is refused. */
const MAX_PUSH = 256 * 1024 * 1024;

/** The Git request `method` and `path` make, if any. */
export function matchGit(
  method: string,
  path: string,
  query: URLSearchParams,
): GitRequest | undefined {
  const m = /^\/(.+?)(?:\.git)?\/(info\/refs|git-upload-pack|git-receive-pack)$/.exec(path);
  if (m === null) return undefined;
  const repoPath = decodeURIComponent(m[1] ?? '');
  const suffix = m[2] ?? '';
  if (suffix === 'info/refs') {
    const service = query.get('service');
    if (method !== 'GET' || (service !== 'git-upload-pack' && service !== 'git-receive-pack'))
      return undefined;
    return { repoPath, service, suffix, route: `GET /{repo}.git/info/refs?service=${service}` };
  }
  if (method !== 'POST') return undefined;
  const service = suffix as GitRequest['service'];
  return { repoPath, service, suffix, route: `POST /{repo}.git/${service}` };
}

/** Everything the Git front needs from its forge. */
export interface GitContext {
  state: ForgeState;
  root: string;
  env: Record<string, string>;
  /** Running http-backend processes, killed when the forge closes. */
  children: Set<ChildProcess>;
}

const MESSAGES = {
  github: {
    realm: 'GitHub',
    badToken:
      'Invalid username or token. Password authentication is not supported for Git operations.\n',
    notFound: 'Repository not found.\n',
    denied: (repo: string, user: string, push: boolean) =>
      push ? `Permission to ${repo}.git denied to ${user}.\n` : `Repository not found.\n`,
    protectedReason: 'protected branch hook declined',
    protectedMessage: (ref: string) =>
      `error: GH006: Protected branch update failed for ${ref}.\nerror: Changes must be made through a pull request.\n`,
  },
  gitlab: {
    realm: 'GitLab',
    badToken:
      "HTTP Basic: Access denied. If a password was provided for Git authentication, the password was incorrect or you're required to use a token instead of a password.\n",
    notFound:
      "The project you were looking for could not be found or you don't have permission to view it.\n",
    denied: (_repo: string, _user: string, push: boolean) =>
      push
        ? 'You are not allowed to push code to this project.\n'
        : 'You are not allowed to download code from this project.\n',
    protectedReason: 'pre-receive hook declined',
    protectedMessage: () =>
      'GitLab: You are not allowed to push code to protected branches on this project.\n',
  },
};

/** Checks the token; answers and returns undefined when the request may not go on. */
function authorize(ctx: GitContext, g: GitRequest, req: IncomingMessage, res: ServerResponse) {
  const text = MESSAGES[ctx.state.kind];
  const challenge = { 'WWW-Authenticate': `Basic realm="${text.realm}"` };
  const presented = presentedToken(req.headers);
  if (presented === undefined) {
    sendText(res, 401, text.badToken, challenge);
    return undefined;
  }
  const token = ctx.state.tokens.lookup(presented);
  if (token === undefined) {
    sendText(res, 401, text.badToken, challenge);
    return undefined;
  }
  const repo = ctx.state.repos.get(g.repoPath);
  const grants = repo === undefined ? undefined : ctx.state.tokens.grants(token, repo.fullName);
  const push = g.service === 'git-receive-pack';
  const verdict = repo === undefined ? 'hidden' : decide(grants, [push ? 'git:write' : 'git:read']);
  if (verdict === 'hidden' || repo === undefined) {
    sendText(res, 404, text.notFound);
    return undefined;
  }
  if (verdict === 'forbidden') {
    sendText(res, 403, text.denied(repo.fullName, token.name, push));
    return undefined;
  }
  return { repo, user: token.name };
}

/** Serves one Git smart HTTP request. */
export async function serveGit(
  ctx: GitContext,
  g: GitRequest,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const allowed = authorize(ctx, g, req, res);
  if (allowed === undefined) {
    req.resume();
    return;
  }
  const { repo, user } = allowed;
  if (g.suffix !== 'git-receive-pack') {
    runBackend(ctx, { g, repo, user, req, res });
    return;
  }
  const body = plainBody(await readBody(req, MAX_PUSH), req.headers['content-encoding']);
  const commands = parseCommands(body);
  const refused = commands.updates.find((u) =>
    repo.protectedBranches.has(u.ref.replace(/^refs\/heads\//, '')),
  );
  if (refused !== undefined) {
    refuse(ctx, res, commands, refused.ref);
    return;
  }
  runBackend(ctx, { g, repo, user, req, res, body });
}

function refuse(ctx: GitContext, res: ServerResponse, commands: PushCommands, ref: string): void {
  const text = MESSAGES[ctx.state.kind];
  const answer = refusal(commands, text.protectedReason, text.protectedMessage(ref));
  res.writeHead(200, {
    'Content-Type': 'application/x-git-receive-pack-result',
    'Cache-Control': 'no-cache, max-age=0, must-revalidate',
    'Content-Length': answer.length,
  });
  res.end(answer);
}

interface BackendCall {
  g: GitRequest;
  repo: RepoRecord;
  user: string;
  req: IncomingMessage;
  res: ServerResponse;
  /** The whole (decompressed) body when it was read already; else the request is streamed. */
  body?: Buffer;
}

function cgiEnvironment(ctx: GitContext, call: BackendCall): Record<string, string> {
  const { req, g } = call;
  const env: Record<string, string> = {
    ...ctx.env,
    GIT_PROJECT_ROOT: ctx.root,
    GIT_HTTP_EXPORT_ALL: '1',
    GATEWAY_INTERFACE: 'CGI/1.1',
    SERVER_PROTOCOL: 'HTTP/1.1',
    REQUEST_METHOD: req.method ?? 'GET',
    PATH_INFO: `/${call.repo.fullName}.git/${g.suffix}`,
    QUERY_STRING: new URL(req.url ?? '/', 'http://x').search.replace(/^\?/, ''),
    CONTENT_TYPE: req.headers['content-type'] ?? '',
    // http-backend only serves receive-pack to an authenticated user.
    REMOTE_USER: call.user,
    REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
  };
  const protocol = req.headers['git-protocol'];
  if (typeof protocol === 'string') env.GIT_PROTOCOL = protocol;
  if (call.body !== undefined) env.CONTENT_LENGTH = String(call.body.length);
  else {
    const length = req.headers['content-length'];
    if (length !== undefined) env.CONTENT_LENGTH = length;
    const encoding = req.headers['content-encoding'];
    if (encoding !== undefined) env.HTTP_CONTENT_ENCODING = encoding;
  }
  return env;
}

function runBackend(ctx: GitContext, call: BackendCall): void {
  const { req, res } = call;
  const child = spawn('git', ['http-backend'], { env: cgiEnvironment(ctx, call) });
  ctx.children.add(child);
  child.stdin.on('error', () => undefined);
  if (call.body !== undefined) child.stdin.end(call.body);
  else req.pipe(child.stdin);
  const stderr: Buffer[] = [];
  child.stderr.on('data', (c: Buffer) => stderr.push(c));
  relayCgiOutput(child, res);
  child.on('close', (code) => {
    ctx.children.delete(child);
    if (code === 0 && call.g.suffix === 'git-receive-pack') call.repo.pushedAt = ctx.state.now();
    if (!res.headersSent) sendText(res, 500, Buffer.concat(stderr).toString('utf8'));
    else res.end();
  });
  res.on('close', () => {
    if (child.exitCode === null) child.kill();
  });
}

/** Turns the CGI header block into the HTTP status and headers, then streams the body. */
function relayCgiOutput(child: ChildProcess, res: ServerResponse): void {
  let head = Buffer.alloc(0);
  let inBody = false;
  child.stdout?.on('data', (chunk: Buffer) => {
    if (inBody) {
      res.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const text = head.toString('latin1');
    const end = text.search(/\r?\n\r?\n/);
    if (end < 0) return;
    const sep = /\r?\n\r?\n/.exec(text.slice(end))?.[0].length ?? 2;
    let status = 200;
    const headers: Record<string, string> = {};
    for (const line of text.slice(0, end).split(/\r?\n/)) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === 'status') status = parseInt(value, 10);
      else if (name !== '') headers[name] = value;
    }
    res.writeHead(status, headers);
    inBody = true;
    const rest = head.subarray(end + sep);
    if (rest.length > 0) res.write(rest);
  });
}
