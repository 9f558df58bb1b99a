/**
 * The forge's web pages a person opens from a link: a pull request at its `html_url`
 * (GitHub `/{owner}/{repo}/pull/{n}`) or `web_url` (GitLab `/{group}/{project}/-/merge_requests/{iid}`),
 * showing its title, state, branches, what it changes and, while open, a merge button (the
 * same button as `forge.merge()` and `POST /_forge/merge`: the simulator has no login). Pages
 * carry no token or credential, only what the pull request itself says.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { mergeThroughForge } from './api.js';
import type { ForgeInternals } from './forge.js';
import { Git } from './git.js';
import { isoSeconds } from './http.js';
import { MergeError, pullShas, type PullRecord } from './pulls.js';
import type { RepoRecord } from './repos.js';

/** A request for a pull request's page, or its merge button. */
export interface WebRequest {
  repoPath: string;
  number: number;
  action: 'view' | 'merge';
  /** Route template the request is counted under. */
  route: string;
}

/** Largest diff a page shows; the rest is cut (a promotion changes a line or two). */
const MAX_DIFF = 64 * 1024;

const CSP =
  "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** The web request `method` and `path` make on a forge of `kind`, if any. */
export function matchWeb(kind: string, method: string, path: string): WebRequest | undefined {
  const github = /^\/(.+?)\/pull\/(\d{1,9})(\/merge)?\/?$/;
  const gitlab = /^\/(.+?)\/-\/merge_requests\/(\d{1,9})(\/merge)?\/?$/;
  const m = (kind === 'github' ? github : gitlab).exec(path);
  if (m === null) return undefined;
  const merge = m[3] !== undefined;
  if (merge ? method !== 'POST' : method !== 'GET' && method !== 'HEAD') return undefined;
  const page = kind === 'github' ? '/{repo}/pull/{number}' : '/{repo}/-/merge_requests/{iid}';
  return {
    repoPath: decodeURIComponent(m[1] ?? ''),
    number: Number(m[2]),
    action: merge ? 'merge' : 'view',
    route: `${method} ${page}${merge ? '/merge' : ''}`,
  };
}

/** Serves a pull request's page (404 page when there is no such request), or merges it. */
export async function serveWeb(
  f: ForgeInternals,
  w: WebRequest,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  req.resume();
  const repo = f.state.repos.get(w.repoPath);
  const pull = repo === undefined ? undefined : f.state.pulls.get(repo, w.number);
  if (repo === undefined || pull === undefined) {
    sendHtml(res, 404, page('Not Found', '<h1>Not Found</h1><p>No such pull request.</p>'));
    return;
  }
  let notice = '';
  if (w.action === 'merge') {
    try {
      await mergeThroughForge(f.state, repo, pull, { method: 'merge', by: repo.namespace });
      res.writeHead(303, { Location: pullPath(f, repo, pull), 'Content-Length': 0 });
      res.end();
      return;
    } catch (err) {
      if (!(err instanceof MergeError)) throw err;
      notice = `<p role="alert" data-testid="merge-refused">Not merged: ${escapeHtml(err.message)}.</p>`;
    }
  }
  const body = await pullBody(f, repo, pull);
  const title = `${pull.title} · ${f.state.kind === 'github' ? 'Pull Request' : 'Merge Request'} ${mark(f)}${String(pull.number)} · ${repo.fullName}`;
  sendHtml(res, w.action === 'merge' ? 409 : 200, page(title, notice + body));
}

function mark(f: ForgeInternals): string {
  return f.state.kind === 'github' ? '#' : '!';
}

function pullPath(f: ForgeInternals, repo: RepoRecord, pull: PullRecord): string {
  const n = String(pull.number);
  return f.state.kind === 'github'
    ? `/${repo.fullName}/pull/${n}`
    : `/${repo.fullName}/-/merge_requests/${n}`;
}

async function pullBody(f: ForgeInternals, repo: RepoRecord, pull: PullRecord): Promise<string> {
  const e = escapeHtml;
  const state = { open: 'Open', closed: 'Closed', merged: 'Merged' }[pull.state];
  const facts: [string, string][] = [
    ['Opened', `${isoSeconds(pull.createdAt)} by ${pull.author}`],
    ['Updated', isoSeconds(pull.updatedAt)],
  ];
  if (pull.mergedAt !== null)
    facts.push(['Merged', `${isoSeconds(pull.mergedAt)} by ${pull.mergedBy ?? '?'}`]);
  else if (pull.closedAt !== null) facts.push(['Closed', isoSeconds(pull.closedAt)]);
  if (pull.mergeCommitSha !== null) facts.push(['Merge commit', pull.mergeCommitSha]);
  const merge =
    pull.state === 'open'
      ? `<form method="post" action="${e(pullPath(f, repo, pull))}/merge"><button type="submit" data-testid="merge">${f.state.kind === 'github' ? 'Merge pull request' : 'Merge'}</button></form>`
      : '';
  return `<p>${e(repo.fullName)}</p>
<h1><span data-testid="pr-title">${e(pull.title)}</span> <span>${mark(f)}${String(pull.number)}</span></h1>
<p><strong data-testid="pr-state" class="state ${e(pull.state)}">${e(state)}</strong>
${e(pull.author)} wants to merge <code data-testid="pr-head">${e(pull.head)}</code> into <code data-testid="pr-base">${e(pull.base)}</code></p>
<dl>${facts.map(([k, v]) => `<dt>${e(k)}</dt><dd>${e(v)}</dd>`).join('')}</dl>
${merge}
<h2>Description</h2>
<pre data-testid="pr-body">${e(pull.body === '' ? '(none)' : pull.body)}</pre>
<h2>Changes</h2>
<pre data-testid="pr-diff">${e(await diffText(f, repo, pull))}</pre>`;
}

/** What the request changes (`git diff base...head`), cut at MAX_DIFF; why not when it cannot. */
async function diffText(f: ForgeInternals, repo: RepoRecord, pull: PullRecord): Promise<string> {
  const { head, base } = await pullShas(f.state.repos, repo, pull);
  if (head === null || base === null) return '(a branch of this request no longer exists)';
  const r = await new Git(f.git.env).run(['diff', '--no-color', `${base}...${head}`], {
    gitDir: repo.gitDir,
  });
  if (r.code !== 0) return '(the changes could not be read)';
  const text = r.stdout.subarray(0, MAX_DIFF).toString('utf8');
  return r.stdout.length > MAX_DIFF ? `${text}\n... (cut)` : text;
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1f2328}
pre{background:#f6f8fa;padding:1rem;overflow:auto}.state{padding:.1rem .6rem;border-radius:1rem;color:#fff}
.open{background:#1a7f37}.merged{background:#8250df}.closed{background:#cf222e}dt{font-weight:600}
button{font:inherit;padding:.3rem 1rem}</style></head>
<body><main>${body}</main></body></html>
`;
}

function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': Buffer.byteLength(html),
    'Content-Security-Policy': CSP,
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(html);
}

/** `text` safe inside HTML text and double-quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${String(c.charCodeAt(0))};`);
}
