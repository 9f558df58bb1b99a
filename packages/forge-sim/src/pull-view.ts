/**
 * A pull request as the REST shapes show it: the record with its repository and the head and
 * base commits read once, so one answer sees one state of the branches. Whether it merges and
 * what it changes are asked of Git only by the shapes that show them.
 */
import type { PullRecord } from './pulls.js';
import { pullShas } from './pulls.js';
import type { DiffStats, RepoRecord } from './repos.js';
import type { ForgeState } from './state.js';

/** A pull request with its forge, repository and current head and base commits. */
export interface PullView {
  state: ForgeState;
  repo: RepoRecord;
  pull: PullRecord;
  shas: { head: string | null; base: string | null };
}

/** Reads the head and base commits of `pull` of `at.repo`. */
export async function viewPull(
  at: { state: ForgeState; repo: RepoRecord },
  pull: PullRecord,
): Promise<PullView> {
  const shas = await pullShas(at.state.repos, at.repo, pull);
  return { state: at.state, repo: at.repo, pull, shas };
}

/** Whether an open pull request merges cleanly; undefined when closed or a branch is gone. */
export async function pullMergeable(v: PullView): Promise<boolean | undefined> {
  const { head, base } = v.shas;
  if (v.pull.state !== 'open' || head === null || base === null) return undefined;
  return (await v.state.repos.mergeTree(v.repo, base, head)) !== undefined;
}

/** Commit and line counts from base to head; undefined when a branch is gone. */
export async function pullDiff(v: PullView): Promise<DiffStats | undefined> {
  const { head, base } = v.shas;
  if (head === null || base === null) return undefined;
  return v.state.repos.diffStats(v.repo, base, head);
}
