/**
 * GitLab's merge requests (REST v4), for gitlab.com and self-managed instances; projects are
 * addressed by their URL-encoded full path, so nested groups need no id lookup.
 */
import type { ForgeDialect } from './forge-http.js';
import { pullRequestRef, record } from './forge-http.js';
import type { PullRequestRef } from './forge-model.js';

/** GitLab's words for "a merge request for this source branch is open already" in a 409. */
const ALREADY_EXISTS = 'Another open merge request already exists';

const STATES: Readonly<Record<string, PullRequestRef['state']>> = {
  opened: 'open',
  merged: 'merged',
  closed: 'closed',
  // A locked request is closed to discussion and to merging: nothing more will land from it.
  locked: 'closed',
};

/** The GitLab dialect for the project at `projectPath` (`group/sub/project`), into `baseBranch`. */
export function gitlabDialect(projectPath: string, baseBranch: string): ForgeDialect {
  const mrs = `/projects/${encodeURIComponent(projectPath)}/merge_requests`;
  return {
    kind: 'gitlab',
    noun: 'merge request',
    headers: (token) => ({ 'private-token': token, accept: 'application/json' }),
    listOpen: (branch) => ({
      method: 'GET',
      path: mrs,
      // One source branch has at most one open request into one target: one page is all of it.
      query: {
        state: 'opened',
        source_branch: branch,
        target_branch: baseBranch,
        per_page: '100',
      },
      what: 'listing the open merge requests',
    }),
    create: (branch, text) => ({
      method: 'POST',
      path: mrs,
      body: {
        source_branch: branch,
        target_branch: baseBranch,
        title: text.title,
        description: text.body,
      },
      what: 'opening the merge request',
    }),
    update: (iid, text) => ({
      method: 'PUT',
      path: `${mrs}/${String(iid)}`,
      body: { title: text.title, description: text.body },
      what: `updating merge request !${String(iid)}`,
    }),
    get: (iid) => ({
      method: 'GET',
      path: `${mrs}/${String(iid)}`,
      what: `reading merge request !${String(iid)}`,
    }),
    alreadyOpen,
    read: readMergeRequest,
  };
}

/** A 409 whose message (a string, or a list of them) says another request is open. */
function alreadyOpen(status: number, body: unknown): boolean {
  if (status !== 409) return false;
  const message = record(body)?.message;
  const messages: unknown[] = Array.isArray(message) ? message : [message];
  return messages.some((m) => typeof m === 'string' && m.startsWith(ALREADY_EXISTS));
}

function readMergeRequest(json: unknown): PullRequestRef | undefined {
  const mr = record(json);
  if (mr === undefined) return undefined;
  const state = typeof mr.state === 'string' && Object.hasOwn(STATES, mr.state) ? mr.state : '';
  return pullRequestRef(mr.iid, mr.web_url, STATES[state]);
}
