/**
 * Pull requests (GitHub) and merge requests (GitLab) share one model: a head branch proposed
 * onto a base branch, open until merged or closed. Merging writes a real commit onto the base
 * branch of the bare repository, as the forge's merge button does.
 */
import type { RepoRecord, RepoStore } from './repos.js';

/** Where a pull request is in its life. */
export type PullState = 'open' | 'closed' | 'merged';

/** How `merge` lands the head on the base. */
export type MergeMethod = 'merge' | 'squash' | 'fast-forward';

/** One pull/merge request. */
export interface PullRecord {
  repoId: number;
  /** Per-repository number (GitHub `number`, GitLab `iid`). */
  number: number;
  /** Forge-wide id. */
  id: number;
  title: string;
  body: string;
  head: string;
  base: string;
  state: PullState;
  author: string;
  createdAt: number;
  updatedAt: number;
  closedAt: number | null;
  mergedAt: number | null;
  mergedBy: string | null;
  closedBy: string | null;
  mergeCommitSha: string | null;
  /** Head and base commits when the request stopped being open (live branch heads before). */
  frozenHeadSha: string | null;
  frozenBaseSha: string | null;
}

/** Why a merge was refused. */
export type MergeRefusal = 'not-open' | 'sha-mismatch' | 'conflict' | 'missing-branch';

/** A refused merge; `reason` picks the forge's answer. */
export class MergeError extends Error {
  override readonly name = 'MergeError';
  constructor(
    readonly reason: MergeRefusal,
    message: string,
  ) {
    super(message);
  }
}

/** The fields a new pull request needs. */
export interface NewPull {
  title: string;
  body: string;
  head: string;
  base: string;
  author: string;
}

/** The pull requests of one forge. */
export class PullStore {
  private readonly byRepo = new Map<number, PullRecord[]>();
  private nextId = 1001;

  constructor(private readonly now: () => number) {}

  /** Opens a pull request on `repo`. */
  create(repo: RepoRecord, fields: NewPull): PullRecord {
    const list = this.byRepo.get(repo.id) ?? [];
    const at = this.now();
    const pull: PullRecord = {
      ...fields,
      repoId: repo.id,
      number: list.length + 1,
      id: this.nextId++,
      state: 'open',
      createdAt: at,
      updatedAt: at,
      closedAt: null,
      mergedAt: null,
      mergedBy: null,
      closedBy: null,
      mergeCommitSha: null,
      frozenHeadSha: null,
      frozenBaseSha: null,
    };
    list.push(pull);
    this.byRepo.set(repo.id, list);
    return pull;
  }

  /** Every pull request of `repo`, oldest first. */
  list(repo: RepoRecord): PullRecord[] {
    return [...(this.byRepo.get(repo.id) ?? [])];
  }

  /** Pull request `number` of `repo`, if any. */
  get(repo: RepoRecord, number: number): PullRecord | undefined {
    return this.byRepo.get(repo.id)?.find((p) => p.number === number);
  }

  /** The open pull request from `head` (onto `base` when given), if any. */
  findOpen(repo: RepoRecord, head: string, base?: string): PullRecord | undefined {
    return this.byRepo
      .get(repo.id)
      ?.find(
        (p) => p.state === 'open' && p.head === head && (base === undefined || p.base === base),
      );
  }

  /** Changes the fields given (title, body, base branch), and the update time. */
  edit(pull: PullRecord, changes: Partial<Pick<PullRecord, 'title' | 'body' | 'base'>>): void {
    if (changes.title !== undefined) pull.title = changes.title;
    if (changes.body !== undefined) pull.body = changes.body;
    if (changes.base !== undefined) pull.base = changes.base;
    pull.updatedAt = this.now();
  }

  /** Marks an open pull request closed without merging. */
  async close(repos: RepoStore, repo: RepoRecord, pull: PullRecord, by: string): Promise<void> {
    if (pull.state !== 'open') return;
    await freeze(repos, repo, pull);
    const at = this.now();
    Object.assign(pull, { state: 'closed', closedAt: at, closedBy: by, updatedAt: at });
  }

  /** Reopens a closed (not merged) pull request. */
  reopen(pull: PullRecord): void {
    if (pull.state !== 'closed') return;
    Object.assign(pull, {
      state: 'open',
      closedAt: null,
      closedBy: null,
      frozenHeadSha: null,
      frozenBaseSha: null,
      updatedAt: this.now(),
    });
  }

  /** Records a successful merge. */
  markMerged(pull: PullRecord, sha: string, headSha: string, baseSha: string, by: string): void {
    const at = this.now();
    Object.assign(pull, {
      state: 'merged',
      mergedAt: at,
      closedAt: at,
      mergedBy: by,
      mergeCommitSha: sha,
      frozenHeadSha: headSha,
      frozenBaseSha: baseSha,
      updatedAt: at,
    });
  }
}

async function freeze(repos: RepoStore, repo: RepoRecord, pull: PullRecord): Promise<void> {
  pull.frozenHeadSha = (await repos.branchHead(repo, pull.head)) ?? null;
  pull.frozenBaseSha = (await repos.branchHead(repo, pull.base)) ?? null;
}

/** The head and base commits of a pull request now (frozen once it is no longer open). */
export async function pullShas(
  repos: RepoStore,
  repo: RepoRecord,
  pull: PullRecord,
): Promise<{ head: string | null; base: string | null }> {
  if (pull.state !== 'open') return { head: pull.frozenHeadSha, base: pull.frozenBaseSha };
  return {
    head: (await repos.branchHead(repo, pull.head)) ?? null,
    base: (await repos.branchHead(repo, pull.base)) ?? null,
  };
}

/** Options of one merge. */
export interface MergeOptions {
  method: MergeMethod;
  /** When given, the head must still be this commit (GitHub `sha`, GitLab `sha`). */
  sha?: string;
  /** Message of the merge or squash commit. */
  message: string;
}

/**
 * Lands `pull` on its base branch: a merge commit (parents base and head), a squash commit (one
 * parent, the merged tree) or a fast-forward. Returns [new base commit, head commit, old base].
 */
export async function landPull(
  repos: RepoStore,
  repo: RepoRecord,
  pull: PullRecord,
  opts: MergeOptions,
): Promise<[string, string, string]> {
  if (pull.state !== 'open') throw new MergeError('not-open', 'the pull request is not open');
  const head = await repos.branchHead(repo, pull.head);
  const base = await repos.branchHead(repo, pull.base);
  if (head === undefined || base === undefined)
    throw new MergeError('missing-branch', 'the head or base branch no longer exists');
  if (opts.sha !== undefined && opts.sha !== head)
    throw new MergeError('sha-mismatch', 'the head branch was modified');
  if (opts.method === 'fast-forward') {
    if (!(await repos.isAncestor(repo, base, head)))
      throw new MergeError('conflict', 'the base branch is not an ancestor of the head');
    await repos.moveBranch(repo, pull.base, head, base);
    return [head, head, base];
  }
  const tree = await repos.mergeTree(repo, base, head);
  if (tree === undefined) throw new MergeError('conflict', 'the branches conflict');
  const parents = opts.method === 'merge' ? [base, head] : [base];
  const sha = await repos.commit(repo, tree, parents, opts.message);
  await repos.moveBranch(repo, pull.base, sha, base);
  return [sha, head, base];
}
