/**
 * A simulated GitHub or GitLab on loopback: one HTTP listener serving Git smart HTTP for real
 * bare repositories, the forge's REST subset, pull requests' web pages, and the simulator's own
 * admin routes under /_forge. Every request is counted on arrival, then may meet an injected fault.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RequestCounter } from './accounting.js';
import { serveAdmin } from './admin.js';
import type { ApiFront } from './api.js';
import { FaultController } from './faults.js';
import type { Injected } from './faults.js';
import type { GitContext } from './git-http.js';
import { matchGit, serveGit } from './git-http.js';
import { Git, gitEnvironment } from './git.js';
import { githubApi } from './github-api.js';
import { gitlabApi } from './gitlab-api.js';
import { matchRoute, sendText } from './http.js';
import { PullStore } from './pulls.js';
import { RepoStore } from './repos.js';
import { StatusStore } from './statuses.js';
import type { ForgeState } from './state.js';
import type { ForgeKind } from './tokens.js';
import { Tokens } from './tokens.js';
import { ForgeHandle } from './handle.js';
import { matchWeb, serveWeb } from './web.js';

/** Options of `startForge`. */
export interface ForgeOptions {
  kind: ForgeKind;
  /** 0 or omitted: an ephemeral port. */
  port?: number;
  /** Listen address; keep it loopback. Default 127.0.0.1. */
  host?: string;
  /** Where the bare repositories live; default a temporary directory removed by `close()`. */
  dir?: string;
  /** The forge's clock (timestamps, rate-limit reset times, commit dates). */
  now?: () => number;
  /** How latency faults wait. */
  sleep?: (ms: number) => Promise<void>;
}

/** Internals shared by the listener and the handle. */
export interface ForgeInternals {
  state: ForgeState;
  front: ApiFront;
  faults: FaultController;
  requests: RequestCounter;
  git: GitContext;
  server: Server;
  sockets: Set<Socket>;
  /** Directories to remove on close. */
  cleanup: string[];
}

function gitFault(res: ServerResponse, injected: Injected): void {
  if (injected.kind === 'error') {
    sendText(res, injected.fault.code, 'error: the forge could not serve this request\n');
    return;
  }
  const wait = String(injected.fault.retryAfterSeconds ?? 60);
  sendText(res, 429, 'Too many requests. Retry later.\n', { 'Retry-After': wait });
}

async function handle(f: ForgeInternals, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://forge');
  const method = req.method ?? 'GET';
  const path = url.pathname;
  const now = f.state.now();
  if (path.startsWith('/_forge/')) {
    f.requests.record({ scope: 'admin', method, route: `${method} ${path}` });
    await serveAdmin(f, req, res, path.slice('/_forge'.length));
    return;
  }
  const { front } = f;
  if (path === front.prefix || path.startsWith(`${front.prefix}/`)) {
    const m = matchRoute(front.routes, method, path.slice(front.prefix.length));
    const route = `${method} ${m?.route.template ?? '(unmatched)'}`;
    f.requests.record({ scope: 'api', method, route });
    const injected = await f.faults.before({ scope: 'api', method, route });
    if (injected !== undefined || m === undefined) {
      req.resume();
      if (injected !== undefined) front.fault(res, injected, now);
      else front.unmatched(res, now);
      return;
    }
    await front.serve(f.state, m, req, res);
    return;
  }
  const w = matchWeb(f.state.kind, method, path);
  if (w !== undefined) {
    f.requests.record({ scope: 'web', method, route: w.route });
    await serveWeb(f, w, req, res);
    return;
  }
  const g = matchGit(method, path, url.searchParams);
  const route = g?.route ?? `${method} (unmatched)`;
  f.requests.record({ scope: g === undefined ? 'api' : 'git', method, route });
  const injected = await f.faults.before({ scope: 'git', method, route });
  if (injected !== undefined || g === undefined) {
    req.resume();
    if (injected !== undefined) gitFault(res, injected);
    else sendText(res, 404, 'Not Found\n');
    return;
  }
  await serveGit(f.git, g, req, res);
}

function listener(f: ForgeInternals) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    handle(f, req, res).catch(() => {
      if (res.headersSent) res.destroy();
      else f.front.internalError(res, f.state.now());
    });
  };
}

function userIds(): (name: string) => number {
  const ids = new Map<string, number>();
  return (name) => {
    let id = ids.get(name);
    if (id === undefined) {
      id = ids.size + 1;
      ids.set(name, id);
    }
    return id;
  };
}

/** Starts a forge and resolves once it listens. */
export async function startForge(opts: ForgeOptions): Promise<ForgeHandle> {
  const now = opts.now ?? Date.now;
  const sleep =
    opts.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const base = mkdtempSync(join(tmpdir(), `forge-sim-${opts.kind}-`));
  const root = opts.dir ?? join(base, 'repos');
  await mkdir(root, { recursive: true });
  const env = gitEnvironment(base);
  const repos = new RepoStore(root, new Git(env), now);
  const state: ForgeState = {
    kind: opts.kind,
    url: '',
    repos,
    pulls: new PullStore(now),
    statuses: new StatusStore(now),
    tokens: new Tokens(opts.kind),
    now,
    userId: userIds(),
  };
  const children = new Set<ChildProcess>();
  const server = createServer();
  const f: ForgeInternals = {
    state,
    front: opts.kind === 'github' ? githubApi : gitlabApi,
    faults: new FaultController(sleep),
    requests: new RequestCounter(),
    git: { state, root, env, children },
    server,
    sockets: new Set(),
    cleanup: [base],
  };
  server.on('request', listener(f));
  server.on('connection', (socket: Socket) => {
    f.sockets.add(socket);
    socket.on('close', () => f.sockets.delete(socket));
  });
  const host = opts.host ?? '127.0.0.1';
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port ?? 0, host, resolve);
    });
  } catch (err) {
    rmSync(base, { recursive: true, force: true });
    throw err;
  }
  const { port } = server.address() as AddressInfo;
  state.url = `http://${host.includes(':') ? `[${host}]` : host}:${String(port)}`;
  return new ForgeHandle(f);
}
