/**
 * Runs the `git` binary for the simulated forge, isolated from the machine's configuration: the
 * user's and the system's gitconfig must not change what the simulator does on a developer's
 * machine versus on CI.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What a finished git command left behind. */
export interface GitResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

/** Options of one git command. */
export interface GitRunOptions {
  /** --git-dir of a bare repository. */
  gitDir?: string;
  input?: string | Buffer;
  env?: Record<string, string>;
}

/** The committer the forge writes merge commits and initial commits as. */
export const FORGE_IDENTITY = { name: 'forge-sim', email: 'forge-sim@users.noreply.example' };

/**
 * The environment every git process of one forge gets: its own HOME and global config (so no
 * hooks, aliases or signing settings leak in), no system config, no prompts.
 */
export function gitEnvironment(home: string): Record<string, string> {
  const config = join(home, 'gitconfig');
  // Tests fetch with protocol v2 and with filters; force pushes are how promotion branches move.
  writeFileSync(
    config,
    '[uploadpack]\n\tallowFilter = true\n[receive]\n\tdenyNonFastForwards = false\n',
  );
  const env: Record<string, string> = {
    HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: config,
    GIT_TERMINAL_PROMPT: '0',
    LANG: 'C',
    LC_ALL: 'C',
  };
  // Only PATH is taken from the caller: git and the helpers it starts must be found; everything
  // else that could change git's behaviour is left out on purpose.
  // eslint-disable-next-line no-restricted-syntax -- PATH is not configuration of the forge
  const path = process.env.PATH;
  if (path !== undefined) env.PATH = path;
  return env;
}

/** A git runner bound to one environment. */
export class Git {
  constructor(readonly env: Record<string, string>) {}

  /** Runs `git args...`; never rejects on a non-zero exit (the caller reads `code`). */
  run(args: string[], opts: GitRunOptions = {}): Promise<GitResult> {
    const full = opts.gitDir === undefined ? args : ['--git-dir', opts.gitDir, ...args];
    return new Promise((resolve, reject) => {
      const child = spawn('git', full, {
        env: { ...this.env, ...opts.env },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on('data', (c: Buffer) => out.push(c));
      child.stderr.on('data', (c: Buffer) => err.push(c));
      child.on('error', reject);
      child.on('close', (code) => {
        resolve({
          code: code ?? 1,
          stdout: Buffer.concat(out),
          stderr: Buffer.concat(err).toString('utf8'),
        });
      });
      child.stdin.on('error', () => undefined);
      child.stdin.end(opts.input);
    });
  }

  /** Runs git and returns trimmed stdout; throws with git's stderr on failure. */
  async text(args: string[], opts: GitRunOptions = {}): Promise<string> {
    const r = await this.run(args, opts);
    if (r.code !== 0)
      throw new Error(`git ${args[0] ?? ''} failed (${String(r.code)}): ${r.stderr.trim()}`);
    return r.stdout.toString('utf8').trim();
  }
}

/** Environment that makes a commit's author and committer the forge, at `whenSeconds`. */
export function identityEnv(whenSeconds: number): Record<string, string> {
  const date = `${String(whenSeconds)} +0000`;
  return {
    GIT_AUTHOR_NAME: FORGE_IDENTITY.name,
    GIT_AUTHOR_EMAIL: FORGE_IDENTITY.email,
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_NAME: FORGE_IDENTITY.name,
    GIT_COMMITTER_EMAIL: FORGE_IDENTITY.email,
    GIT_COMMITTER_DATE: date,
  };
}
