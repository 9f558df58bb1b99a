/**
 * The simulator's own routes under /_forge on the forge's port (unauthenticated, loopback
 * only): request counts, faults, and the merge and close buttons, for a demo or a test that
 * drives the `forge-sim` command from another process.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { mergeThroughForge } from './api.js';
import type { FaultKind } from './faults.js';
import type { ForgeInternals } from './forge.js';
import { HttpError, parseParams, readBody, sendJson, str } from './http.js';
import { MergeError } from './pulls.js';
import type { MergeMethod } from './pulls.js';

function pullOf(f: ForgeInternals, params: Record<string, unknown>) {
  const repo = f.state.repos.get(str(params, 'repo') ?? '');
  const pull = repo === undefined ? undefined : f.state.pulls.get(repo, Number(params.number));
  if (repo === undefined || pull === undefined)
    throw new HttpError(404, { error: 'no such repository or pull request' });
  return { repo, pull };
}

async function pressButton(
  f: ForgeInternals,
  path: string,
  params: Record<string, unknown>,
): Promise<unknown> {
  const { repo, pull } = pullOf(f, params);
  if (path === '/close') {
    await f.state.pulls.close(f.state.repos, repo, pull, repo.namespace);
    return { state: pull.state };
  }
  const method = (str(params, 'method') ?? 'merge') as MergeMethod;
  try {
    const sha = await mergeThroughForge(f.state, repo, pull, { method, by: repo.namespace });
    return { sha };
  } catch (err) {
    if (err instanceof MergeError) throw new HttpError(409, { error: err.message });
    throw err;
  }
}

async function route(
  f: ForgeInternals,
  method: string,
  path: string,
  params: Record<string, unknown>,
): Promise<unknown> {
  const key = `${method} ${path}`;
  if (key === 'GET /requests') return f.requests.snapshot();
  if (key === 'DELETE /requests') {
    f.requests.reset();
    return {};
  }
  if (key === 'GET /faults') return { faults: f.faults.current(), stats: f.faults.stats() };
  if (key === 'PUT /faults' || key === 'PATCH /faults') {
    if (method === 'PUT') f.faults.clear();
    f.faults.set(params);
    return { faults: f.faults.current() };
  }
  if (method === 'DELETE' && path.startsWith('/faults')) {
    const kind = path.slice('/faults/'.length);
    f.faults.clear(kind === '' ? undefined : (kind as FaultKind));
    return { faults: f.faults.current() };
  }
  if (method === 'POST' && (path === '/merge' || path === '/close'))
    return pressButton(f, path, params);
  throw new HttpError(404, { error: `no admin route ${key}` });
}

/** Serves one /_forge request (`path` without the /_forge prefix). */
export async function serveAdmin(
  f: ForgeInternals,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): Promise<void> {
  try {
    const raw = await readBody(req);
    const params = parseParams(raw, req.headers['content-type']);
    sendJson(res, 200, await route(f, req.method ?? 'GET', path, params));
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    sendJson(res, err.status, err.body);
  }
}
