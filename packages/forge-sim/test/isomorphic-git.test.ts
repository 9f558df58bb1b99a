/**
 * Git smart HTTP against isomorphic-git, the library the gateway uses from Node: depth-1 clone
 * and fetch of the base branch, one commit on top, force-push of the promotion branch, and the
 * protected-branch refusal as isomorphic-git reports it.
 */
import * as fs from 'node:fs';
import { join } from 'node:path';
import * as isogit from 'isomorphic-git';
import http from 'isomorphic-git/http/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ForgeHandle, ForgeKind } from '../src/index.js';
import { gitAuth, startForge } from '../src/index.js';
import { DEV_VALUES, scratch } from './helpers.js';

const author = { name: 'Promotion Bot', email: 'bot@example.com', timestamp: 1_700_000_000 };

describe.each<{ kind: ForgeKind; repo: string; reason: string }>([
  { kind: 'github', repo: 'acme/fleet', reason: 'protected branch hook declined' },
  { kind: 'gitlab', repo: 'acme/platform/fleet', reason: 'pre-receive hook declined' },
])('$kind with isomorphic-git', ({ kind, repo, reason }) => {
  let forge: ForgeHandle;
  let token: string;
  let dir: string;
  let remove: () => Promise<void>;

  beforeAll(async () => {
    forge = await startForge({ kind });
    await forge.createRepo(repo, { 'envs/dev/podinfo.yaml': DEV_VALUES });
    token = forge.addToken('promoter');
    ({ dir, remove } = await scratch('forge-sim-iso-'));
  });
  afterAll(async () => {
    await forge.close();
    await remove();
  });

  const remote = (extra: Partial<Parameters<typeof isogit.clone>[0]> = {}) => ({
    fs,
    http,
    url: forge.cloneUrl(repo),
    onAuth: () => gitAuth(kind, token),
    ...extra,
  });

  it('clones depth 1, commits on top and force-pushes the promotion branch', async () => {
    const cwd = join(dir, 'work');
    await isogit.clone({ ...remote(), dir: cwd, ref: 'main', singleBranch: true, depth: 1 });
    const base = await isogit.resolveRef({ fs, dir: cwd, ref: 'HEAD' });
    expect(base).toBe(await forge.branchHead(repo, 'main'));
    const branch = 'promotion-apps-podinfo-dev';
    await isogit.branch({ fs, dir: cwd, ref: branch, checkout: true });
    fs.writeFileSync(join(cwd, 'envs/dev/podinfo.yaml'), DEV_VALUES.replace('6.5.0', '6.5.1'));
    await isogit.add({ fs, dir: cwd, filepath: 'envs/dev/podinfo.yaml' });
    const sha = await isogit.commit({
      fs,
      dir: cwd,
      message: 'Promote apps/podinfo in dev to 6.5.1',
      author,
    });
    const pushed = await isogit.push({ ...remote(), dir: cwd, ref: branch, force: true });
    expect(pushed.ok).toBe(true);
    expect(await forge.branchHead(repo, branch)).toBe(sha);
    expect((await forge.log(repo, branch)).map((c) => c.parents)).toEqual([[base], []]);
    expect(await forge.readFile(repo, branch, 'envs/dev/podinfo.yaml')).toContain('6.5.1 #');
  });

  it('fetches depth 1 into a fresh repository and force-pushes a replacement commit', async () => {
    const cwd = join(dir, 'again');
    await isogit.init({ fs, dir: cwd, defaultBranch: 'main' });
    await isogit.addRemote({ fs, dir: cwd, remote: 'origin', url: forge.cloneUrl(repo) });
    const fetched = await isogit.fetch({
      ...remote(),
      dir: cwd,
      ref: 'main',
      singleBranch: true,
      depth: 1,
    });
    const base = fetched.fetchHead ?? '';
    expect(base).toBe(await forge.branchHead(repo, 'main'));
    await isogit.checkout({ fs, dir: cwd, ref: 'origin/main' });
    await isogit.branch({
      fs,
      dir: cwd,
      ref: 'promotion-apps-podinfo-dev',
      object: base,
      force: true,
      checkout: true,
    });
    fs.writeFileSync(join(cwd, 'envs/dev/podinfo.yaml'), DEV_VALUES.replace('6.5.0', '6.6.0'));
    await isogit.add({ fs, dir: cwd, filepath: 'envs/dev/podinfo.yaml' });
    const sha = await isogit.commit({
      fs,
      dir: cwd,
      message: 'Promote apps/podinfo in dev to 6.6.0',
      author,
    });
    await isogit.push({
      ...remote(),
      dir: cwd,
      remote: 'origin',
      ref: 'promotion-apps-podinfo-dev',
      force: true,
    });
    expect(await forge.branchHead(repo, 'promotion-apps-podinfo-dev')).toBe(sha);
    expect((await forge.log(repo, 'promotion-apps-podinfo-dev')).length).toBe(2);
  });

  it('reports a protected branch refusal as a GitPushError with the forge reason', async () => {
    forge.protectBranch(repo, 'main');
    const cwd = join(dir, 'work');
    const messages: string[] = [];
    const refused = isogit.push({
      ...remote(),
      dir: cwd,
      ref: 'promotion-apps-podinfo-dev',
      remoteRef: 'main',
      onMessage: (m) => {
        messages.push(m);
      },
    });
    await expect(refused).rejects.toMatchObject({
      code: 'GitPushError',
      data: { result: { refs: { 'refs/heads/main': { ok: false, error: reason } } } },
    });
    expect(messages.join('')).toMatch(/GH006|not allowed to push code to protected branches/);
  });

  it('fails authentication with a revoked token', async () => {
    const revoked = forge.addToken('gone');
    forge.revoke('gone');
    const listing = isogit.getRemoteInfo({
      http,
      url: forge.cloneUrl(repo),
      onAuth: () => gitAuth(kind, revoked),
    });
    await expect(listing).rejects.toMatchObject({ code: 'HttpError', data: { statusCode: 401 } });
  });
});
