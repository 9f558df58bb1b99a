/**
 * Git smart HTTP against the real `git` binary, for both forges: shallow clone and fetch
 * (protocol v2), the promotion push (one commit on top of the base, force-pushed to its own
 * branch), protected branches refused the forge's way, and the auth answers.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ForgeHandle, ForgeKind } from '../src/index.js';
import { startForge } from '../src/index.js';
import { authedUrl, DEV_VALUES, git, gitOk, gitTestEnv, scratch } from './helpers.js';

const KINDS: { kind: ForgeKind; repo: string; user: string; refusal: string; message: string }[] = [
  {
    kind: 'github',
    repo: 'acme/fleet',
    user: 'x-access-token',
    refusal: '(protected branch hook declined)',
    message: 'remote: error: GH006: Protected branch update failed for refs/heads/main.',
  },
  {
    kind: 'gitlab',
    repo: 'acme/platform/fleet',
    user: 'oauth2',
    refusal: '(pre-receive hook declined)',
    message:
      'remote: GitLab: You are not allowed to push code to protected branches on this project.',
  },
];

describe.each(KINDS)(
  '$kind over Git smart HTTP (git binary)',
  ({ kind, repo, user, refusal, message }) => {
    let forge: ForgeHandle;
    let env: Record<string, string>;
    let token: string;
    let dir: string;
    let remove: () => Promise<void>;
    let url: string;

    beforeAll(async () => {
      forge = await startForge({ kind });
      await forge.createRepo(repo, {
        'envs/dev/podinfo.yaml': DEV_VALUES,
        'README.md': '# fleet\n',
      });
      token = forge.addToken('promoter');
      env = await gitTestEnv();
      ({ dir, remove } = await scratch('forge-sim-git-'));
      url = authedUrl(forge, repo, user, token);
      // A second commit on main, so a depth-1 clone has history to leave out.
      await gitOk(['clone', '--quiet', url, 'full'], dir, env);
      await writeFile(join(dir, 'full', 'README.md'), '# fleet\n\nsecond commit\n');
      await gitOk(['commit', '--quiet', '-am', 'Second commit'], join(dir, 'full'), env);
      await gitOk(['push', '--quiet', 'origin', 'main'], join(dir, 'full'), env);
    });
    afterAll(async () => {
      await forge.close();
      await remove();
    });

    it('serves a shallow clone over protocol v2', async () => {
      const traced = await git(['clone', '--depth', '1', url, 'shallow'], dir, {
        ...env,
        GIT_TRACE_PACKET: '1',
      });
      expect(traced.code).toBe(0);
      expect(traced.stderr).toMatch(/< version 2/);
      const cwd = join(dir, 'shallow');
      expect((await gitOk(['rev-parse', '--is-shallow-repository'], cwd, env)).trim()).toBe('true');
      expect((await gitOk(['rev-list', '--count', 'HEAD'], cwd, env)).trim()).toBe('1');
      expect((await gitOk(['log', '-1', '--format=%s'], cwd, env)).trim()).toBe('Second commit');
    });

    it('takes the promotion push: a depth-1 fetch, one commit on top, force-pushed', async () => {
      const cwd = join(dir, 'promote');
      await gitOk(['init', '--quiet', cwd], dir, env);
      await gitOk(['fetch', '--quiet', '--depth', '1', url, 'main'], cwd, env);
      const base = (await gitOk(['rev-parse', 'FETCH_HEAD'], cwd, env)).trim();
      expect(base).toBe(await forge.branchHead(repo, 'main'));
      const branch = 'promotion-apps-podinfo-dev';
      for (const version of ['6.5.1', '6.5.2']) {
        await gitOk(['checkout', '--quiet', '-B', branch, base], cwd, env);
        await writeFile(join(cwd, 'envs/dev/podinfo.yaml'), DEV_VALUES.replace('6.5.0', version));
        await gitOk(
          ['commit', '--quiet', '-am', `Promote apps/podinfo in dev to ${version}`],
          cwd,
          env,
        );
        await gitOk(['push', '--quiet', '--force', url, `HEAD:refs/heads/${branch}`], cwd, env);
      }
      const log = await forge.log(repo, branch);
      expect(log.map((c) => c.message.trim())).toEqual([
        'Promote apps/podinfo in dev to 6.5.2',
        'Second commit',
        'Initial commit',
      ]);
      expect(log[0]?.parents).toEqual([base]);
      expect(await forge.readFile(repo, branch, 'envs/dev/podinfo.yaml')).toContain('6.5.2 #');
      expect(forge.requests.count({ route: 'POST /{repo}.git/git-receive-pack' })).toBe(3);
    });

    it('refuses pushes to a protected branch the way the forge does', async () => {
      forge.protectBranch(repo, 'main');
      const cwd = join(dir, 'full');
      const before = await forge.branchHead(repo, 'main');
      await writeFile(join(cwd, 'README.md'), '# fleet\n\nstraight to main\n');
      await gitOk(['commit', '--quiet', '-am', 'Bypass review'], cwd, env);
      const pushed = await git(['push', 'origin', 'main'], cwd, env);
      expect(pushed.code).not.toBe(0);
      expect(pushed.stderr).toContain(message);
      expect(pushed.stderr).toContain(`! [remote rejected] main -> main ${refusal}`);
      expect(await forge.branchHead(repo, 'main')).toBe(before);
      forge.unprotectBranch(repo, 'main');
    });

    it('answers bad tokens, hidden repositories and read-only tokens like the forge', async () => {
      const bad = await git(['ls-remote', authedUrl(forge, repo, user, 'not-a-token')], dir, env);
      expect(bad.code).not.toBe(0);
      expect(bad.stderr).toMatch(/Authentication failed/);
      const elsewhere = forge.addToken('outsider', undefined, ['someone/else']);
      const hidden = await git(['ls-remote', authedUrl(forge, repo, user, elsewhere)], dir, env);
      expect(hidden.stderr).toMatch(/not found|could not be found/);
      const readOnly = forge.addToken(
        'reader',
        kind === 'github' ? ['contents:read'] : ['read_repository'],
      );
      const readUrl = authedUrl(forge, repo, user, readOnly);
      expect((await git(['ls-remote', readUrl], dir, env)).code).toBe(0);
      const push = await git(['push', readUrl, 'HEAD:refs/heads/reader'], join(dir, 'full'), env);
      expect(push.stderr).toMatch(/403/);
      forge.revoke(readOnly);
      expect((await git(['ls-remote', readUrl], dir, env)).stderr).toMatch(/Authentication failed/);
    });
  },
);
