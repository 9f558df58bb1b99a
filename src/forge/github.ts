/**
 * GitHub's pull requests (REST, API version 2022-11-28), for github.com and GitHub Enterprise
 * Server alike; only the API root differs, and forge-client.ts derives it.
 */
import type { ForgeDialect } from './forge-http.js';
import { pullRequestRef, record } from './forge-http.js';
import type { PullRequestRef } from './forge-model.js';

/** GitHub's words for "a pull request for this head is open already" in a 422's errors. */
const ALREADY_EXISTS = 'A pull request already exists';

/** The GitHub dialect for `owner/repo`, proposing into `baseBranch`. */
export function githubDialect(owner: string, repo: string, baseBranch: string): ForgeDialect {
  const pulls = `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}/pulls`;
  return {
    kind: 'github',
    noun: 'pull request',
    headers: (token) => ({
      authorization: `Bearer ${token}`,
      accept: 'application/vnd.github+json',
      'x-github-api-version': '2022-11-28',
    }),
    listOpen: (branch) => ({
      method: 'GET',
      path: pulls,
      // One branch has at most one open request into one base, so the first page is all of it.
      query: { state: 'open', head: `${owner}:${branch}`, base: baseBranch, per_page: '100' },
      what: 'listing the open pull requests',
    }),
    create: (branch, text) => ({
      method: 'POST',
      path: pulls,
      body: { title: text.title, body: text.body, head: branch, base: baseBranch },
      what: 'opening the pull request',
    }),
    update: (number, text) => ({
      method: 'PATCH',
      path: `${pulls}/${String(number)}`,
      body: { title: text.title, body: text.body },
      what: `updating pull request #${String(number)}`,
    }),
    get: (number) => ({
      method: 'GET',
      path: `${pulls}/${String(number)}`,
      what: `reading pull request #${String(number)}`,
    }),
    alreadyOpen,
    read: readPull,
  };
}

/** A 422 whose `errors` say a pull request for the head exists (another replica opened it). */
function alreadyOpen(status: number, body: unknown): boolean {
  const errors = record(body)?.errors;
  if (status !== 422 || !Array.isArray(errors)) return false;
  return errors.some((error) => {
    const message = record(error)?.message;
    return typeof message === 'string' && message.startsWith(ALREADY_EXISTS);
  });
}

/** `pull-request` or `pull-request-simple`: merged when it says so, else its open/closed state. */
function readPull(json: unknown): PullRequestRef | undefined {
  const pull = record(json);
  if (pull === undefined) return undefined;
  return pullRequestRef(pull.number, pull.html_url, pullState(pull));
}

function pullState(pull: Record<string, unknown>): PullRequestRef['state'] | undefined {
  // Lists carry merged_at only; single pull requests carry merged too.
  if (typeof pull.merged_at === 'string' || pull.merged === true) return 'merged';
  if (pull.state === 'open' || pull.state === 'closed') return pull.state;
  return undefined;
}
