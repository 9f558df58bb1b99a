/**
 * GitHub's pull-request JSON: `pull-request-simple` (lists) and `pull-request` (one), with the
 * head and base commits read from the repository, and commit and line counts from Git.
 */
import type { PullRecord } from './pulls.js';
import { pullDiff, pullMergeable, type PullView } from './pull-view.js';
import type { RepoRecord } from './repos.js';
import type { ForgeState } from './state.js';
import { apiBase } from './state.js';
import { isoSeconds } from './http.js';
import { nodeId, repository, simpleUser } from './github-shapes.js';

const timestamp = (ms: number | null): string | null => (ms === null ? null : isoSeconds(ms));

function links(state: ForgeState, repo: RepoRecord, pull: PullRecord, headSha: string) {
  const api = `${apiBase(state)}/repos/${repo.fullName}`;
  const n = String(pull.number);
  return {
    url: `${api}/pulls/${n}`,
    html_url: `${state.url}/${repo.fullName}/pull/${n}`,
    diff_url: `${state.url}/${repo.fullName}/pull/${n}.diff`,
    patch_url: `${state.url}/${repo.fullName}/pull/${n}.patch`,
    issue_url: `${api}/issues/${n}`,
    commits_url: `${api}/pulls/${n}/commits`,
    review_comments_url: `${api}/pulls/${n}/comments`,
    review_comment_url: `${api}/pulls/comments{/number}`,
    comments_url: `${api}/issues/${n}/comments`,
    statuses_url: `${api}/statuses/${headSha}`,
  };
}

function hypermedia(l: ReturnType<typeof links>): Record<string, { href: string }> {
  return {
    self: { href: l.url },
    html: { href: l.html_url },
    issue: { href: l.issue_url },
    comments: { href: l.comments_url },
    review_comments: { href: l.review_comments_url },
    review_comment: { href: l.review_comment_url },
    commits: { href: l.commits_url },
    statuses: { href: l.statuses_url },
  };
}

/** `pull-request-simple`: what GET /repos/{owner}/{repo}/pulls lists. */
export function pullRequestSimple(v: PullView): Record<string, unknown> {
  const { state, repo, pull, shas } = v;
  // A deleted head branch leaves GitHub's last known sha; the simulator has none, so ''.
  const headSha = shas.head ?? '';
  const l = links(state, repo, pull, headSha);
  const side = (ref: string, sha: string | null): Record<string, unknown> => ({
    label: `${repo.namespace}:${ref}`,
    ref,
    sha: sha ?? '',
    user: simpleUser(state, repo.namespace),
    repo: repository(state, repo),
  });
  return {
    ...l,
    id: pull.id,
    node_id: nodeId('PR', pull.id),
    number: pull.number,
    state: pull.state === 'open' ? 'open' : 'closed',
    locked: false,
    title: pull.title,
    user: simpleUser(state, pull.author),
    body: pull.body === '' ? null : pull.body,
    labels: [],
    milestone: null,
    active_lock_reason: null,
    created_at: isoSeconds(pull.createdAt),
    updated_at: isoSeconds(pull.updatedAt),
    closed_at: timestamp(pull.closedAt),
    merged_at: timestamp(pull.mergedAt),
    merge_commit_sha: pull.mergeCommitSha,
    assignee: null,
    assignees: [],
    requested_reviewers: [],
    requested_teams: [],
    head: side(pull.head, shas.head),
    base: side(pull.base, shas.base),
    _links: hypermedia(l),
    author_association: pull.author === repo.namespace ? 'OWNER' : 'COLLABORATOR',
    auto_merge: null,
    draft: false,
  };
}

/** `pull-request`: GET/PATCH of one pull request and the answer to its creation. */
export async function pullRequestFull(v: PullView): Promise<Record<string, unknown>> {
  const { state, pull } = v;
  const mergeable = (await pullMergeable(v)) ?? null;
  const stats = (await pullDiff(v)) ?? { commits: 0, additions: 0, deletions: 0, changedFiles: 0 };
  return {
    ...pullRequestSimple(v),
    merged: pull.state === 'merged',
    mergeable,
    rebaseable: mergeable,
    mergeable_state: mergeable === null ? 'unknown' : mergeable ? 'clean' : 'dirty',
    merged_by: pull.mergedBy === null ? null : simpleUser(state, pull.mergedBy),
    comments: 0,
    review_comments: 0,
    maintainer_can_modify: false,
    commits: stats.commits,
    additions: stats.additions,
    deletions: stats.deletions,
    changed_files: stats.changedFiles,
  };
}
