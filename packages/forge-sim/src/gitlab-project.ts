/**
 * GitLab's project JSON (GET /projects/:id), key for key as the documented example of a single
 * project, less the keys GitLab only shows on paid tiers or on request (test/fixtures/gitlab
 * records the example and test/gitlab-shapes.test.ts checks this against it).
 */
import type { RepoRecord } from './repos.js';
import type { ForgeState } from './state.js';
import { apiBase } from './state.js';
import { isoMillis } from './http.js';

/** GitLab's user reference (author, assignee, merge_user, ...). */
export function gitlabUser(state: ForgeState, username: string): Record<string, unknown> {
  const id = state.userId(username);
  return {
    id,
    username,
    name: username,
    state: 'active',
    locked: false,
    avatar_url: null,
    web_url: `${state.url}/${username}`,
  };
}

function links(state: ForgeState, repo: RepoRecord): Record<string, string> {
  const api = `${apiBase(state)}/projects/${String(repo.id)}`;
  return {
    self: api,
    issues: `${api}/issues`,
    merge_requests: `${api}/merge_requests`,
    repo_branches: `${api}/repository/branches`,
    labels: `${api}/labels`,
    events: `${api}/events`,
    members: `${api}/members`,
    cluster_agents: `${api}/cluster_agents`,
  };
}

function identity(state: ForgeState, repo: RepoRecord): Record<string, unknown> {
  const host = new URL(state.url).hostname;
  const group = repo.namespace.split('/').at(-1) ?? repo.namespace;
  return {
    id: repo.id,
    description: null,
    description_html: '',
    default_branch: repo.defaultBranch,
    visibility: 'private',
    ssh_url_to_repo: `git@${host}:${repo.fullName}.git`,
    http_url_to_repo: `${state.url}/${repo.fullName}.git`,
    web_url: `${state.url}/${repo.fullName}`,
    readme_url: null,
    tag_list: [],
    topics: [],
    owner: { id: state.userId(group), name: group, created_at: isoMillis(repo.createdAt) },
    name: repo.name,
    name_with_namespace: `${repo.namespace.split('/').join(' / ')} / ${repo.name}`,
    path: repo.name,
    path_with_namespace: repo.fullName,
    namespace: {
      id: state.userId(repo.namespace),
      name: group,
      path: group,
      kind: 'group',
      full_path: repo.namespace,
      avatar_url: null,
      web_url: `${state.url}/groups/${repo.namespace}`,
    },
  };
}

function features(): Record<string, unknown> {
  return {
    issues_enabled: true,
    open_issues_count: 0,
    merge_requests_enabled: true,
    jobs_enabled: true,
    wiki_enabled: true,
    snippets_enabled: true,
    can_create_merge_request_in: true,
    resolve_outdated_diff_discussions: false,
    container_registry_enabled: false,
    container_registry_access_level: 'disabled',
    security_and_compliance_access_level: 'private',
    container_expiration_policy: {
      cadence: '1d',
      enabled: false,
      keep_n: 10,
      older_than: '90d',
      name_regex: '.*',
      name_regex_delete: '.*',
      name_regex_keep: null,
      next_run_at: null,
    },
  };
}

function ciAndMergeSettings(): Record<string, unknown> {
  return {
    shared_runners_enabled: true,
    group_runners_enabled: true,
    forks_count: 0,
    star_count: 0,
    ci_default_git_depth: 20,
    ci_forward_deployment_enabled: true,
    ci_forward_deployment_rollback_allowed: true,
    ci_allow_fork_pipelines_to_run_in_parent_project: true,
    ci_id_token_sub_claim_components: ['project_path', 'ref_type', 'ref'],
    ci_separated_caches: true,
    ci_restrict_pipeline_cancellation_role: 'developer',
    ci_pipeline_variables_minimum_override_role: 'developer',
    ci_push_repository_for_job_token_allowed: false,
    public_jobs: true,
    shared_with_groups: [],
    repository_storage: 'default',
    only_allow_merge_if_pipeline_succeeds: false,
    allow_merge_on_skipped_pipeline: false,
    allow_pipeline_trigger_approve_deployment: false,
    restrict_user_defined_variables: false,
    only_allow_merge_if_all_discussions_are_resolved: false,
    remove_source_branch_after_merge: true,
    printing_merge_requests_link_enabled: true,
    request_access_enabled: true,
    merge_method: 'merge',
    squash_option: 'default_off',
    auto_devops_enabled: false,
    auto_devops_deploy_strategy: 'continuous',
    packages_enabled: true,
    service_desk_enabled: false,
    service_desk_address: null,
    autoclose_referenced_issues: true,
    suggestion_commit_message: null,
    enforce_auth_checks_on_uploads: true,
    merge_commit_template: null,
    squash_commit_template: null,
    issue_branch_template: null,
    warn_about_potentially_unwanted_characters: true,
    secret_push_protection_enabled: false,
  };
}

/** A project as GET /projects/:id shows it to a member with `accessLevel` (30 developer). */
export function gitlabProject(
  state: ForgeState,
  repo: RepoRecord,
  accessLevel: number,
): Record<string, unknown> {
  const group = repo.namespace.split('/').at(-1) ?? repo.namespace;
  return {
    ...identity(state, repo),
    ...features(),
    created_at: isoMillis(repo.createdAt),
    updated_at: isoMillis(repo.pushedAt),
    last_activity_at: isoMillis(repo.pushedAt),
    creator_id: state.userId(group),
    import_url: null,
    import_type: null,
    import_status: 'none',
    import_error: null,
    permissions: {
      project_access: { access_level: accessLevel, notification_level: 3 },
      group_access: null,
    },
    archived: false,
    avatar_url: null,
    ...ciAndMergeSettings(),
    container_registry_image_prefix: `registry.${new URL(state.url).hostname}/${repo.fullName}`,
    _links: links(state, repo),
  };
}
