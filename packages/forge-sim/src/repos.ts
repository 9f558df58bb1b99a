/**
 * The forge's repositories: real bare Git repositories on disk (served by `git http-backend`),
 * plus what the forge keeps beside them (numeric id, default branch, protected branches).
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Git } from './git.js';
import { identityEnv } from './git.js';
import { commitFiles } from './commit-files.js';

/** One repository (GitHub) or project (GitLab). */
export interface RepoRecord {
  id: number;
  /** `owner/name` (GitHub) or `group[/subgroup]/project` (GitLab). */
  fullName: string;
  /** Everything before the last segment: the owner or the group path. */
  namespace: string;
  name: string;
  defaultBranch: string;
  createdAt: number;
  /** Last accepted push (creation time until the first push). */
  pushedAt: number;
  gitDir: string;
  protectedBranches: Set<string>;
}

/** A commit with what the REST APIs show of it. */
export interface CommitDetails extends CommitInfo {
  tree: string;
  committer: { name: string; email: string; date: string };
}

/** What a pull request changes: commits on head not on base, and line counts. */
export interface DiffStats {
  commits: number;
  additions: number;
  deletions: number;
  changedFiles: number;
}

/** A commit as `log` reports it. */
export interface CommitInfo {
  sha: string;
  parents: string[];
  author: { name: string; email: string; date: string };
  message: string;
}

const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;

/** Throws unless `fullName` is a path the forge accepts (GitHub: exactly owner/name). */
export function checkRepoName(fullName: string, nested: boolean): void {
  const parts = fullName.split('/');
  const ok =
    parts.length >= 2 &&
    (nested || parts.length === 2) &&
    parts.every((p) => SEGMENT.test(p) && !p.endsWith('.git'));
  if (!ok) throw new Error(`forge-sim: invalid repository name ${JSON.stringify(fullName)}`);
}

function fastImportScript(branch: string, files: Record<string, string>, when: number): Buffer {
  const parts: Buffer[] = [];
  const data = (text: string): void => {
    const bytes = Buffer.from(text, 'utf8');
    parts.push(Buffer.from(`data ${String(bytes.length)}\n`), bytes, Buffer.from('\n'));
  };
  parts.push(
    Buffer.from(
      `commit refs/heads/${branch}\ncommitter forge-sim <forge-sim@users.noreply.example> ${String(when)} +0000\n`,
    ),
  );
  data('Initial commit\n');
  for (const [path, content] of Object.entries(files)) {
    if (path === '' || /[\n"]/.test(path) || path.startsWith('/'))
      throw new Error(`forge-sim: unsupported file path ${JSON.stringify(path)}`);
    parts.push(Buffer.from(`M 100644 inline ${path}\n`));
    data(content);
  }
  return Buffer.concat(parts);
}

/** The repositories of one forge, under `root`. */
export class RepoStore {
  private readonly byName = new Map<string, RepoRecord>();
  private readonly byId = new Map<number, RepoRecord>();
  private nextId = 1;

  constructor(
    private readonly root: string,
    private readonly git: Git,
    private readonly now: () => number,
  ) {}

  /** Creates a bare repository whose `branch` holds one commit with `files`. */
  async create(
    fullName: string,
    files: Record<string, string>,
    branch: string,
    nested: boolean,
  ): Promise<RepoRecord> {
    checkRepoName(fullName, nested);
    if (this.byName.has(fullName))
      throw new Error(`forge-sim: repository ${fullName} already exists`);
    const gitDir = join(this.root, `${fullName}.git`);
    await mkdir(gitDir, { recursive: true });
    await this.git.text(['init', '--quiet', '--bare', `--initial-branch=${branch}`, gitDir]);
    const when = Math.floor(this.now() / 1000);
    if (Object.keys(files).length > 0) {
      const script = fastImportScript(branch, files, when);
      await this.git.text(['fast-import', '--quiet'], { gitDir, input: script });
    }
    const slash = fullName.lastIndexOf('/');
    const record: RepoRecord = {
      id: this.nextId++,
      fullName,
      namespace: fullName.slice(0, slash),
      name: fullName.slice(slash + 1),
      defaultBranch: branch,
      createdAt: this.now(),
      pushedAt: this.now(),
      gitDir,
      protectedBranches: new Set(),
    };
    this.byName.set(fullName, record);
    this.byId.set(record.id, record);
    return record;
  }

  /** The repository named `fullName` (case-sensitive), if any. */
  get(fullName: string): RepoRecord | undefined {
    return this.byName.get(fullName);
  }

  /** The repository with numeric id `id`, if any. */
  getById(id: number): RepoRecord | undefined {
    return this.byId.get(id);
  }

  /** Every repository, in creation order. */
  all(): RepoRecord[] {
    return [...this.byName.values()];
  }

  /** The repository named `fullName`; throws when there is none. */
  require(fullName: string): RepoRecord {
    const repo = this.byName.get(fullName);
    if (repo === undefined) throw new Error(`forge-sim: no repository ${fullName}`);
    return repo;
  }

  /** The commit `ref` names (a branch, tag or sha), or undefined. */
  async resolve(repo: RepoRecord, ref: string): Promise<string | undefined> {
    const r = await this.git.run(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], {
      gitDir: repo.gitDir,
    });
    return r.code === 0 ? r.stdout.toString('utf8').trim() : undefined;
  }

  /** The head commit of branch `branch`, or undefined when the branch does not exist. */
  branchHead(repo: RepoRecord, branch: string): Promise<string | undefined> {
    return this.resolve(repo, `refs/heads/${branch}`);
  }

  /** The content of `path` at `ref`, or undefined when the ref or the file does not exist. */
  async readFile(repo: RepoRecord, ref: string, path: string): Promise<string | undefined> {
    const r = await this.git.run(['cat-file', 'blob', `${ref}:${path}`], { gitDir: repo.gitDir });
    return r.code === 0 ? r.stdout.toString('utf8') : undefined;
  }

  /** Commits reachable from `ref`, newest first ([] when the ref does not exist). */
  async log(repo: RepoRecord, ref: string): Promise<CommitInfo[]> {
    if ((await this.resolve(repo, ref)) === undefined) return [];
    const format = '%H%x1f%P%x1f%an%x1f%ae%x1f%aI%x1f%B%x1e';
    const out = await this.git.text(['log', `--format=${format}`, ref, '--'], {
      gitDir: repo.gitDir,
    });
    return out
      .split('\x1e')
      .map((entry) => entry.replace(/^\n/, ''))
      .filter((entry) => entry !== '')
      .map((entry) => {
        const [sha = '', parents = '', name = '', email = '', date = '', message = ''] =
          entry.split('\x1f');
        return {
          sha,
          parents: parents === '' ? [] : parents.split(' '),
          author: { name, email, date },
          message,
        };
      });
  }

  /** True when commit `a` is an ancestor of (or equal to) commit `b`. */
  async isAncestor(repo: RepoRecord, a: string, b: string): Promise<boolean> {
    const r = await this.git.run(['merge-base', '--is-ancestor', a, b], { gitDir: repo.gitDir });
    return r.code === 0;
  }

  /** The tree of merging `head` into `base`, or undefined when they conflict. */
  async mergeTree(repo: RepoRecord, base: string, head: string): Promise<string | undefined> {
    if (await this.isAncestor(repo, base, head)) return this.treeOf(repo, head);
    const r = await this.git.run(['merge-tree', '--write-tree', base, head], {
      gitDir: repo.gitDir,
    });
    if (r.code === 1) return undefined;
    if (r.code !== 0)
      throw new Error(`forge-sim: git merge-tree --write-tree needs git 2.38+: ${r.stderr}`);
    return r.stdout.toString('utf8').split('\n')[0];
  }

  /** The tree of commit `sha`. */
  treeOf(repo: RepoRecord, sha: string): Promise<string> {
    return this.git.text(['rev-parse', `${sha}^{tree}`], { gitDir: repo.gitDir });
  }

  /** Writes a commit of `tree` with `parents`, authored and committed by the forge now. */
  commit(repo: RepoRecord, tree: string, parents: string[], message: string): Promise<string> {
    const args = ['commit-tree', tree, ...parents.flatMap((p) => ['-p', p]), '-F', '-'];
    const env = identityEnv(Math.floor(this.now() / 1000));
    return this.git.text(args, { gitDir: repo.gitDir, input: message, env });
  }

  /** Moves `branch` from `expected` to `sha`; fails when someone moved it meanwhile. */
  async moveBranch(repo: RepoRecord, branch: string, sha: string, expected: string): Promise<void> {
    await this.git.text(['update-ref', `refs/heads/${branch}`, sha, expected], {
      gitDir: repo.gitDir,
    });
  }

  /** Points lightweight tag `tag` at commit `sha` (moving it if it exists). */
  async setTag(repo: RepoRecord, tag: string, sha: string): Promise<void> {
    await this.git.text(['update-ref', `refs/tags/${tag}`, sha], { gitDir: repo.gitDir });
  }

  /** Tree, parents, author and committer of commit `sha`. */
  async commitDetails(repo: RepoRecord, sha: string): Promise<CommitDetails> {
    const format = '%H%x1f%T%x1f%P%x1f%an%x1f%ae%x1f%aI%x1f%cn%x1f%ce%x1f%cI%x1f%B';
    const out = await this.git.text(['show', '-s', `--format=${format}`, sha], {
      gitDir: repo.gitDir,
    });
    const [
      hash = '',
      tree = '',
      parents = '',
      an = '',
      ae = '',
      ad = '',
      cn = '',
      ce = '',
      cd = '',
      msg = '',
    ] = out.split('\x1f');
    return {
      sha: hash,
      tree,
      parents: parents === '' ? [] : parents.split(' '),
      author: { name: an, email: ae, date: ad },
      committer: { name: cn, email: ce, date: cd },
      message: msg,
    };
  }

  /** Commits in `head` not in `base`, and the line counts of `base...head`. */
  async diffStats(repo: RepoRecord, base: string, head: string): Promise<DiffStats> {
    const gitDir = repo.gitDir;
    const count = await this.git.text(['rev-list', '--count', `${base}..${head}`], { gitDir });
    const numstat = await this.git.text(['diff', '--numstat', `${base}...${head}`], { gitDir });
    const stats = { commits: Number(count), additions: 0, deletions: 0, changedFiles: 0 };
    for (const line of numstat.split('\n').filter((l) => l !== '')) {
      const [added = '0', deleted = '0'] = line.split('\t');
      // Binary files show '-' for both counts.
      stats.additions += Number(added) || 0;
      stats.deletions += Number(deleted) || 0;
      stats.changedFiles++;
    }
    return stats;
  }

  /** Commits `files` on top of `branch` (created from `from` when missing); returns the sha. */
  async commitFiles(
    repo: RepoRecord,
    change: { branch: string; files: Record<string, string>; message: string; from: string },
  ): Promise<string> {
    const sha = await commitFiles(this.git, repo, change, Math.floor(this.now() / 1000));
    repo.pushedAt = this.now();
    return sha;
  }
}
