/**
 * GitLab's merge-request JSON: the basic entity lists show, and the full one that GET, POST,
 * PUT and merge answer with, key for key as the documented examples (less paid-tier keys and
 * keys GitLab shows only for forks or on request; see test/fixtures/gitlab/README.md).
 */
import { pullDiff, pullMergeable, type PullView } from './pull-view.js';
import { isoMillis } from './http.js';
import { gitlabUser } from './gitlab-project.js';

const GITLAB_STATE = { open: 'opened', closed: 'closed', merged: 'merged' } as const;

const timestamp = (ms: number | null): string | null => (ms === null ? null : isoMillis(ms));

/** The basic entity (GET /projects/:id/merge_requests lists these). */
export async function mergeRequestBasic(v: PullView): Promise<Record<string, unknown>> {
  const { state, repo, pull, shas } = v;
  const open = pull.state === 'open';
  const mergeable = (await pullMergeable(v)) ?? true;
  const merger = pull.mergedBy === null ? null : gitlabUser(state, pull.mergedBy);
  const iid = String(pull.number);
  return {
    id: pull.id,
    iid: pull.number,
    project_id: repo.id,
    title: pull.title,
    description: pull.body,
    state: GITLAB_STATE[pull.state],
    imported: false,
    imported_from: 'none',
    merged_by: merger,
    merge_user: merger,
    merged_at: timestamp(pull.mergedAt),
    merge_after: null,
    prepared_at: isoMillis(pull.createdAt),
    closed_by: pull.closedBy === null ? null : gitlabUser(state, pull.closedBy),
    closed_at: pull.state === 'closed' ? timestamp(pull.closedAt) : null,
    created_at: isoMillis(pull.createdAt),
    updated_at: isoMillis(pull.updatedAt),
    target_branch: pull.base,
    source_branch: pull.head,
    upvotes: 0,
    downvotes: 0,
    author: gitlabUser(state, pull.author),
    assignee: null,
    assignees: [],
    reviewers: [],
    source_project_id: repo.id,
    target_project_id: repo.id,
    labels: [],
    draft: false,
    work_in_progress: false,
    milestone: null,
    merge_when_pipeline_succeeds: false,
    merge_status: mergeable ? 'can_be_merged' : 'cannot_be_merged',
    detailed_merge_status: open ? (mergeable ? 'mergeable' : 'conflict') : 'not_open',
    sha: shas.head,
    merge_commit_sha: pull.mergeCommitSha,
    squash_commit_sha: null,
    user_notes_count: 0,
    discussion_locked: null,
    should_remove_source_branch: null,
    force_remove_source_branch: true,
    web_url: `${state.url}/${repo.fullName}/-/merge_requests/${iid}`,
    reference: `!${iid}`,
    references: { short: `!${iid}`, relative: `!${iid}`, full: `${repo.fullName}!${iid}` },
    time_stats: {
      time_estimate: 0,
      total_time_spent: 0,
      human_time_estimate: null,
      human_total_time_spent: null,
    },
    squash: false,
    squash_on_merge: false,
    task_completion_status: { count: 0, completed_count: 0 },
    has_conflicts: !mergeable,
    blocking_discussions_resolved: true,
  };
}

/** The full entity (GET, POST and PUT of one merge request, and the merge answer). */
export async function mergeRequestFull(
  v: PullView,
  canMerge: boolean,
): Promise<Record<string, unknown>> {
  const { head, base } = v.shas;
  const stats = await pullDiff(v);
  return {
    ...(await mergeRequestBasic(v)),
    subscribed: true,
    changes_count: stats === undefined ? null : String(stats.changedFiles),
    latest_build_started_at: null,
    latest_build_finished_at: null,
    first_deployed_to_production_at: null,
    pipeline: null,
    head_pipeline: null,
    diff_refs:
      head === null || base === null ? null : { base_sha: base, head_sha: head, start_sha: base },
    merge_error: null,
    first_contribution: false,
    user: { can_merge: canMerge },
  };
}
