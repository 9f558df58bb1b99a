/**
 * Writes a commit straight into a bare repository (no clone): what a person pushing to the
 * forge looks like to a test or the demo, e.g. a change on the base branch that makes a
 * promotion's pull request conflict.
 */
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Git } from './git.js';
import { identityEnv } from './git.js';
import type { RepoRecord } from './repos.js';

const ZERO = '0000000000000000000000000000000000000000';

/**
 * Commits `files` (path -> content) on top of `branch`, or of `from` when the branch does not
 * exist yet (it is then created). Returns the new commit.
 */
export async function commitFiles(
  git: Git,
  repo: RepoRecord,
  change: { branch: string; files: Record<string, string>; message: string; from: string },
  nowSeconds: number,
): Promise<string> {
  const gitDir = repo.gitDir;
  const resolve = async (ref: string): Promise<string | undefined> => {
    const r = await git.run(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { gitDir });
    return r.code === 0 ? r.stdout.toString('utf8').trim() : undefined;
  };
  const current = await resolve(`refs/heads/${change.branch}`);
  const parent = current ?? (await resolve(change.from));
  if (parent === undefined) throw new Error(`forge-sim: ${repo.fullName} has no ${change.from}`);
  // A private index, so concurrent commits to other branches do not share staging state.
  const index = join(tmpdir(), `forge-sim-index-${randomUUID()}`);
  const env = { ...identityEnv(nowSeconds), GIT_INDEX_FILE: index };
  try {
    await git.text(['read-tree', parent], { gitDir, env });
    for (const [path, content] of Object.entries(change.files)) {
      const blob = await git.text(['hash-object', '-w', '--stdin'], { gitDir, input: content });
      await git.text(['update-index', '--add', '--cacheinfo', `100644,${blob},${path}`], {
        gitDir,
        env,
      });
    }
    const tree = await git.text(['write-tree'], { gitDir, env });
    const sha = await git.text(['commit-tree', tree, '-p', parent, '-F', '-'], {
      gitDir,
      env,
      input: change.message,
    });
    await git.text(['update-ref', `refs/heads/${change.branch}`, sha, current ?? ZERO], { gitDir });
    return sha;
  } finally {
    await rm(index, { force: true });
  }
}
