/**
 * The code API of a running forge (`startForge` resolves to one): tokens, repositories, pull
 * requests and the merge button, fault injection and request accounting. Code-API calls skip
 * auth, faults and accounting.
 */
import { rmSync } from 'node:fs';
import type { RequestCounter } from './accounting.js';
import { mergeThroughForge } from './api.js';
import type { FaultController } from './faults.js';
import type { ForgeInternals } from './forge.js';
import type { MergeMethod, PullRecord } from './pulls.js';
import type { CommitInfo } from './repos.js';
import { apiBase } from './state.js';
import type { ForgeKind } from './tokens.js';

/** A repository as the code API reports it. */
export interface RepoInfo {
  id: number;
  fullName: string;
  defaultBranch: string;
  cloneUrl: string;
  protectedBranches: string[];
}

/** A pull request (GitHub) or merge request (GitLab) as the code API reports it. */
export interface PullRequestInfo {
  /** GitHub `number`, GitLab `iid`. */
  number: number;
  title: string;
  body: string;
  head: string;
  base: string;
  state: 'open' | 'closed' | 'merged';
  author: string;
  mergeCommitSha: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A commit status as `setStatus` takes it. */
export interface CommitStatusInfo {
  context: string;
  state: string;
  description?: string;
  targetUrl?: string;
  /** GitLab: a job allowed to fail. */
  allowFailure?: boolean;
  /** Who reports it; default `ci-bot`. */
  by?: string;
}

/** A check run as `setCheckRun` takes it. */
export interface CheckRunInfo {
  name: string;
  status: string;
  conclusion?: string;
  detailsUrl?: string;
}

/** Options of `merge`. */
export interface MergeRequestOptions {
  /** 'merge' (merge commit, the default), 'squash' or 'fast-forward'. */
  method?: MergeMethod;
  /** Who merges; default the repository owner / group. */
  by?: string;
}

function pullInfo(p: PullRecord): PullRequestInfo {
  return {
    number: p.number,
    title: p.title,
    body: p.body,
    head: p.head,
    base: p.base,
    state: p.state,
    author: p.author,
    mergeCommitSha: p.mergeCommitSha,
    createdAt: new Date(p.createdAt).toISOString(),
    updatedAt: new Date(p.updatedAt).toISOString(),
  };
}

/** A running simulated forge. */
export class ForgeHandle {
  /** Fault injection: `set`, `clear`, `current`, `stats`. */
  readonly faults: FaultController;
  /** Request accounting: `count`, `snapshot`, `reset`. */
  readonly requests: RequestCounter;
  private closed = false;

  constructor(private readonly f: ForgeInternals) {
    this.faults = f.faults;
    this.requests = f.requests;
  }

  /** 'github' or 'gitlab'. */
  get kind(): ForgeKind {
    return this.f.state.kind;
  }

  /** Base URL: the web and Git root, e.g. http://127.0.0.1:41234. */
  get url(): string {
    return this.f.state.url;
  }

  /** REST base: `${url}/api/v3` (GitHub Enterprise style) or `${url}/api/v4` (GitLab). */
  get apiUrl(): string {
    return apiBase(this.f.state);
  }

  /** The HTTPS-style clone URL of `repo` (no credentials in it). */
  cloneUrl(repo: string): string {
    return `${this.url}/${repo}.git`;
  }

  /** Issues a token for user `name` (default scopes: GitHub `repo`, GitLab `api`). */
  addToken(name: string, scopes?: string[], repos?: string[]): string {
    return this.f.state.tokens.add(name, scopes, repos);
  }

  /** Revokes a token, or every token of a user; later calls with it get 401. */
  revoke(tokenOrName: string): number {
    return this.f.state.tokens.revoke(tokenOrName);
  }

  /** Creates a repository whose `branch` (default 'main') holds one commit with `files`. */
  async createRepo(
    fullName: string,
    files: Record<string, string>,
    branch = 'main',
  ): Promise<RepoInfo> {
    const repo = await this.f.state.repos.create(fullName, files, branch, this.kind === 'gitlab');
    return this.repo(repo.fullName);
  }

  /** What the forge knows of `repo`. */
  repo(fullName: string): RepoInfo {
    const r = this.f.state.repos.require(fullName);
    return {
      id: r.id,
      fullName: r.fullName,
      defaultBranch: r.defaultBranch,
      cloneUrl: this.cloneUrl(r.fullName),
      protectedBranches: [...r.protectedBranches],
    };
  }

  /** Protects `branch`: every push to it is refused; merges through the forge still land. */
  protectBranch(repo: string, branch: string): void {
    this.f.state.repos.require(repo).protectedBranches.add(branch);
  }

  /** Lifts the protection of `branch`. */
  unprotectBranch(repo: string, branch: string): void {
    this.f.state.repos.require(repo).protectedBranches.delete(branch);
  }

  /** The content of `path` at `ref` (branch, tag or sha), or undefined. */
  readFile(repo: string, ref: string, path: string): Promise<string | undefined> {
    const r = this.f.state.repos.require(repo);
    return this.f.state.repos.readFile(r, ref, path);
  }

  /** Commits reachable from `ref`, newest first. */
  log(repo: string, ref: string): Promise<CommitInfo[]> {
    return this.f.state.repos.log(this.f.state.repos.require(repo), ref);
  }

  /** The head commit of `branch`, or undefined. */
  branchHead(repo: string, branch: string): Promise<string | undefined> {
    return this.f.state.repos.branchHead(this.f.state.repos.require(repo), branch);
  }

  /**
   * Commits `files` (path -> content) on top of `branch`, as a push by someone else would;
   * a missing branch is created from `from` (default the default branch). Returns the sha.
   */
  commit(
    repo: string,
    branch: string,
    files: Record<string, string>,
    message: string,
    from?: string,
  ): Promise<string> {
    const r = this.f.state.repos.require(repo);
    const change = { branch, files, message, from: from ?? r.defaultBranch };
    return this.f.state.repos.commitFiles(r, change);
  }

  /** Creates `branch` at `from` (a branch, tag or sha; default the default branch). */
  async createBranch(repo: string, branch: string, from?: string): Promise<string> {
    const { repos } = this.f.state;
    const r = repos.require(repo);
    const sha = await repos.resolve(r, from ?? r.defaultBranch);
    if (sha === undefined) throw new Error(`forge-sim: ${repo} has no ${from ?? r.defaultBranch}`);
    await repos.moveBranch(r, branch, sha, '0'.repeat(40));
    return sha;
  }

  /** Creates (or moves) lightweight tag `tag` at `from` (default the default branch); the sha. */
  async createTag(repo: string, tag: string, from?: string): Promise<string> {
    const { repos } = this.f.state;
    const r = repos.require(repo);
    const sha = await this.commitOf(repo, from ?? r.defaultBranch);
    await repos.setTag(r, tag, sha);
    return sha;
  }

  /**
   * Reports a status on the commit `ref` names, as a CI system would: GitHub's states (error,
   * failure, pending, success) or GitLab's job states (pending, running, success, failed,
   * canceled, skipped, manual...). `context` is GitLab's `name`. Returns the commit's sha.
   */
  async setStatus(repo: string, ref: string, status: CommitStatusInfo): Promise<string> {
    const r = this.f.state.repos.require(repo);
    const sha = await this.commitOf(repo, ref);
    const { by, ...rest } = status;
    this.f.state.statuses.addStatus(r.id, sha, { ...rest, creator: by ?? 'ci-bot' });
    return sha;
  }

  /** Reports a GitHub check run (status queued|in_progress|completed, and a conclusion). */
  async setCheckRun(repo: string, ref: string, run: CheckRunInfo): Promise<string> {
    const r = this.f.state.repos.require(repo);
    const sha = await this.commitOf(repo, ref);
    this.f.state.statuses.addCheckRun(r.id, sha, run);
    return sha;
  }

  private async commitOf(repo: string, ref: string): Promise<string> {
    const sha = await this.f.state.repos.resolve(this.f.state.repos.require(repo), ref);
    if (sha === undefined) throw new Error(`forge-sim: ${repo} has no ${ref}`);
    return sha;
  }

  /** Every pull/merge request of `repo`, oldest first. */
  pullRequests(repo: string): PullRequestInfo[] {
    return this.f.state.pulls.list(this.f.state.repos.require(repo)).map(pullInfo);
  }

  /** Presses the merge button: lands the request on its base; returns the new base commit. */
  async merge(repo: string, number: number, opts: MergeRequestOptions = {}): Promise<string> {
    const { r, pull } = this.pull(repo, number);
    return mergeThroughForge(this.f.state, r, pull, {
      method: opts.method ?? 'merge',
      by: opts.by ?? r.namespace.split('/')[0] ?? r.namespace,
    });
  }

  /** Closes a pull/merge request without merging it (`close(repo, number)`); see also `close()`. */
  close(): Promise<void>;
  close(repo: string, number: number): Promise<void>;
  async close(repo?: string, number?: number): Promise<void> {
    if (repo !== undefined && number !== undefined) {
      const { r, pull } = this.pull(repo, number);
      await this.f.state.pulls.close(this.f.state.repos, r, pull, r.namespace);
      return;
    }
    await this.shutdown();
  }

  private pull(repo: string, number: number) {
    const r = this.f.state.repos.require(repo);
    const pull = this.f.state.pulls.get(r, number);
    if (pull === undefined)
      throw new Error(`forge-sim: ${repo} has no pull request ${String(number)}`);
    return { r, pull };
  }

  /** Stops listening, ends open connections and Git processes, removes temporary files. */
  private async shutdown(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.f.faults.release();
    for (const child of this.f.git.children) child.kill();
    await new Promise<void>((resolve) => {
      this.f.server.close(() => {
        resolve();
      });
      for (const socket of this.f.sockets) socket.destroy();
    });
    for (const dir of this.f.cleanup) rmSync(dir, { recursive: true, force: true });
  }
}
