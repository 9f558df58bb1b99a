/**
 * GitHub's JSON for users, repositories and branches, field for field as its OpenAPI
 * description requires (test/openapi.test.ts validates every answer against it). URLs follow
 * GitHub Enterprise Server: the web and Git at the base URL, REST under /api/v3.
 */
import type { CommitDetails, RepoRecord } from './repos.js';
import type { ForgeState } from './state.js';
import { apiBase } from './state.js';
import { isoSeconds } from './http.js';

/** GitHub's opaque GraphQL node id, shaped like the real ones. */
export function nodeId(prefix: string, id: number): string {
  return `${prefix}_kgDO${Buffer.from(String(id)).toString('base64url')}`;
}

/** A `simple-user`. */
export function simpleUser(state: ForgeState, login: string): Record<string, unknown> {
  const id = state.userId(login);
  const api = `${apiBase(state)}/users/${login}`;
  return {
    login,
    id,
    node_id: nodeId('U', id),
    avatar_url: `${state.url}/avatars/u/${String(id)}?v=4`,
    gravatar_id: '',
    url: api,
    html_url: `${state.url}/${login}`,
    followers_url: `${api}/followers`,
    following_url: `${api}/following{/other_user}`,
    gists_url: `${api}/gists{/gist_id}`,
    starred_url: `${api}/starred{/owner}{/repo}`,
    subscriptions_url: `${api}/subscriptions`,
    organizations_url: `${api}/orgs`,
    repos_url: `${api}/repos`,
    events_url: `${api}/events{/privacy}`,
    received_events_url: `${api}/received_events`,
    type: 'User',
    user_view_type: 'public',
    site_admin: false,
  };
}

function repoUrls(state: ForgeState, repo: RepoRecord): Record<string, string> {
  const api = `${apiBase(state)}/repos/${repo.fullName}`;
  const host = new URL(state.url).host;
  return {
    html_url: `${state.url}/${repo.fullName}`,
    url: api,
    archive_url: `${api}/{archive_format}{/ref}`,
    assignees_url: `${api}/assignees{/user}`,
    blobs_url: `${api}/git/blobs{/sha}`,
    branches_url: `${api}/branches{/branch}`,
    collaborators_url: `${api}/collaborators{/collaborator}`,
    comments_url: `${api}/comments{/number}`,
    commits_url: `${api}/commits{/sha}`,
    compare_url: `${api}/compare/{base}...{head}`,
    contents_url: `${api}/contents/{+path}`,
    contributors_url: `${api}/contributors`,
    deployments_url: `${api}/deployments`,
    downloads_url: `${api}/downloads`,
    events_url: `${api}/events`,
    forks_url: `${api}/forks`,
    git_commits_url: `${api}/git/commits{/sha}`,
    git_refs_url: `${api}/git/refs{/sha}`,
    git_tags_url: `${api}/git/tags{/sha}`,
    git_url: `git://${host}/${repo.fullName}.git`,
    issue_comment_url: `${api}/issues/comments{/number}`,
    issue_events_url: `${api}/issues/events{/number}`,
    issues_url: `${api}/issues{/number}`,
    keys_url: `${api}/keys{/key_id}`,
    labels_url: `${api}/labels{/name}`,
    languages_url: `${api}/languages`,
    merges_url: `${api}/merges`,
    milestones_url: `${api}/milestones{/number}`,
    notifications_url: `${api}/notifications{?since,all,participating}`,
    pulls_url: `${api}/pulls{/number}`,
    releases_url: `${api}/releases{/id}`,
    ssh_url: `git@${host.split(':')[0] ?? host}:${repo.fullName}.git`,
    stargazers_url: `${api}/stargazers`,
    statuses_url: `${api}/statuses/{sha}`,
    subscribers_url: `${api}/subscribers`,
    subscription_url: `${api}/subscription`,
    tags_url: `${api}/tags`,
    teams_url: `${api}/teams`,
    trees_url: `${api}/git/trees{/sha}`,
    clone_url: `${state.url}/${repo.fullName}.git`,
    hooks_url: `${api}/hooks`,
    svn_url: `${state.url}/${repo.fullName}`,
  };
}

/** A `repository` (as embedded in a pull request's head and base). */
export function repository(state: ForgeState, repo: RepoRecord): Record<string, unknown> {
  const openPulls = state.pulls.list(repo).filter((p) => p.state === 'open').length;
  return {
    id: repo.id,
    node_id: nodeId('R', repo.id),
    name: repo.name,
    full_name: repo.fullName,
    private: true,
    owner: simpleUser(state, repo.namespace),
    description: null,
    fork: false,
    ...repoUrls(state, repo),
    mirror_url: null,
    homepage: null,
    language: null,
    forks_count: 0,
    stargazers_count: 0,
    watchers_count: 0,
    size: 0,
    default_branch: repo.defaultBranch,
    open_issues_count: openPulls,
    is_template: false,
    topics: [],
    has_issues: true,
    has_projects: true,
    has_wiki: true,
    has_pages: false,
    has_downloads: true,
    has_discussions: false,
    archived: false,
    disabled: false,
    visibility: 'private',
    pushed_at: isoSeconds(repo.pushedAt),
    created_at: isoSeconds(repo.createdAt),
    updated_at: isoSeconds(repo.pushedAt),
    allow_forking: true,
    web_commit_signoff_required: false,
    license: null,
    forks: 0,
    open_issues: openPulls,
    watchers: 0,
  };
}

/** A `full-repository` (GET /repos/{owner}/{repo}), with the caller's permissions. */
export function fullRepository(
  state: ForgeState,
  repo: RepoRecord,
  canWrite: boolean,
): Record<string, unknown> {
  return {
    ...repository(state, repo),
    permissions: { admin: false, maintain: false, push: canWrite, triage: canWrite, pull: true },
    allow_squash_merge: true,
    allow_merge_commit: true,
    allow_rebase_merge: true,
    allow_auto_merge: false,
    delete_branch_on_merge: false,
    allow_update_branch: false,
    use_squash_pr_title_as_default: false,
    squash_merge_commit_title: 'COMMIT_OR_PR_TITLE',
    squash_merge_commit_message: 'COMMIT_MESSAGES',
    merge_commit_title: 'MERGE_MESSAGE',
    merge_commit_message: 'PR_TITLE',
    temp_clone_token: '',
    subscribers_count: 1,
    network_count: 0,
  };
}

/** A `commit` (as in a branch). */
export function commitObject(
  state: ForgeState,
  repo: RepoRecord,
  c: CommitDetails,
): Record<string, unknown> {
  const api = `${apiBase(state)}/repos/${repo.fullName}`;
  const html = `${state.url}/${repo.fullName}`;
  return {
    sha: c.sha,
    node_id: nodeId('C', parseInt(c.sha.slice(0, 8), 16)),
    commit: {
      author: c.author,
      committer: c.committer,
      message: c.message.replace(/\n+$/, ''),
      tree: { sha: c.tree, url: `${api}/git/trees/${c.tree}` },
      url: `${api}/git/commits/${c.sha}`,
      comment_count: 0,
      verification: {
        verified: false,
        reason: 'unsigned',
        signature: null,
        payload: null,
        verified_at: null,
      },
    },
    url: `${api}/commits/${c.sha}`,
    html_url: `${html}/commit/${c.sha}`,
    comments_url: `${api}/commits/${c.sha}/comments`,
    // Commit e-mails are not linked to forge users here; GitHub then answers an empty object.
    author: {},
    committer: {},
    parents: c.parents.map((sha) => ({
      sha,
      url: `${api}/commits/${sha}`,
      html_url: `${html}/commit/${sha}`,
    })),
  };
}

/** A `branch-with-protection` (GET /repos/{owner}/{repo}/branches/{branch}). */
export function branchObject(
  state: ForgeState,
  repo: RepoRecord,
  branch: string,
  head: CommitDetails,
): Record<string, unknown> {
  const api = `${apiBase(state)}/repos/${repo.fullName}/branches/${branch}`;
  const isProtected = repo.protectedBranches.has(branch);
  return {
    name: branch,
    commit: commitObject(state, repo, head),
    _links: { self: api, html: `${state.url}/${repo.fullName}/tree/${branch}` },
    protected: isProtected,
    protection: {
      enabled: isProtected,
      required_status_checks: { enforcement_level: 'off', contexts: [], checks: [] },
    },
    protection_url: `${api}/protection`,
  };
}
