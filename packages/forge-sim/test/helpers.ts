/**
 * Test helpers: raw REST calls to a simulated forge (status, headers and body as sent), and the
 * `git` binary run asynchronously (the forge serves from this same process, so a synchronous
 * child process would deadlock it) with an isolated configuration.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ForgeHandle } from '../src/index.js';

/** A completed REST answer. */
export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body, typed as JSON.parse types it (undefined when it is not JSON). */
  json: ReturnType<typeof JSON.parse>;
}

/** Options of one REST call. */
export interface CallOptions {
  method?: string;
  token?: string;
  /** How the token is sent: GitHub `Bearer`/`token`, GitLab `PRIVATE-TOKEN`. Default Bearer. */
  auth?: 'bearer' | 'token' | 'private-token';
  body?: unknown;
}

/** Calls `path` under the forge's REST root. */
export async function call(
  forge: ForgeHandle,
  path: string,
  opts: CallOptions = {},
): Promise<Reply> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (opts.token !== undefined) {
    if (opts.auth === 'private-token') headers['private-token'] = opts.token;
    else headers.authorization = `${opts.auth === 'token' ? 'token' : 'Bearer'} ${opts.token}`;
  }
  let body: string | undefined;
  if (opts.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(opts.body);
  }
  const res = await fetch(`${forge.apiUrl}${path}`, {
    method: opts.method ?? 'GET',
    headers,
    body,
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** What a git command did. */
export interface GitRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Environment for the git binary in tests: no user or system config, no prompts. */
export function gitTestEnv(): Promise<Record<string, string>> {
  // HOME only matters for configuration, which GIT_CONFIG_GLOBAL already points elsewhere.
  return Promise.resolve({
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: tmpdir(),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: 'Promotion Bot',
    GIT_AUTHOR_EMAIL: 'bot@example.com',
    GIT_COMMITTER_NAME: 'Promotion Bot',
    GIT_COMMITTER_EMAIL: 'bot@example.com',
    LANG: 'C',
    LC_ALL: 'C',
  });
}

/** Runs git asynchronously; resolves with its exit code instead of throwing. */
export function git(args: string[], cwd: string, env: Record<string, string>): Promise<GitRun> {
  return new Promise((resolve) => {
    execFile('git', args, { cwd, env }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs git and returns stdout; throws with stderr when it fails. */
export async function gitOk(
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<string> {
  const r = await git(args, cwd, env);
  if (r.code !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

/** The clone URL of `repo` with `user:token` in it, as CI systems write them. */
export function authedUrl(forge: ForgeHandle, repo: string, user: string, token: string): string {
  return forge.cloneUrl(repo).replace('://', `://${user}:${token}@`);
}

/** A fresh temporary directory and its removal. */
export async function scratch(
  prefix: string,
): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** A promotion-ready environment file with weave's marker, as the strategy will edit. */
export const DEV_VALUES = `# podinfo in dev
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: podinfo
  namespace: apps
spec:
  chart:
    spec:
      chart: podinfo
      version: 6.5.0 # {"$promotion": "apps:podinfo:dev"}
`;
