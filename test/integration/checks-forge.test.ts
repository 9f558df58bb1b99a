/**
 * A commit-status check through the pull-request strategy's REST client against the simulated
 * GitHub and GitLab over real HTTP: the commit of a Flux Git revision or of a tag template,
 * statuses and check runs as each forge words them, and every failure to read Unknown with a
 * message that carries no token.
 */
import { startForge, type ForgeHandle, type ForgeKind } from 'forge-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SecretKeyReader } from '../../src/auth/legacy-keys.js';
import { runCommitStatusCheck, type CommitStatusDeps } from '../../src/checks/commit-status.js';
import type { CommitStatusCheck } from '../../src/checks/resolve.js';

describe.each<ForgeKind>(['github', 'gitlab'])('a commit-status check on %s', (kind) => {
  const repo = kind === 'github' ? 'acme/app' : 'acme/platform/app';
  let forge: ForgeHandle;
  let token: string;
  let head: string;
  const secrets = new Map<string, string>();
  const readSecret: SecretKeyReader = (_ns, name, key) =>
    Promise.resolve(
      key === 'token' && secrets.has(name) ? Buffer.from(secrets.get(name) ?? '') : undefined,
    );
  const deps = (): CommitStatusDeps => ({
    fetch,
    readSecret,
    settings: { allowedHosts: [], allowPlainHttp: true },
    now: Date.now,
  });
  const check = (fields: Partial<CommitStatusCheck> = {}): CommitStatusCheck => ({
    kind: 'commitStatus',
    repository: { type: kind, url: `${forge.url}/${repo}`, secretRef: 'forge' },
    contexts: [],
    timeoutMs: 2_000,
    cacheMs: 60_000,
    ...fields,
  });
  const run = (c: CommitStatusCheck, revision = `main@sha1:${head}`) =>
    runCommitStatusCheck(c, 'apps', revision, deps());
  const pending = kind === 'github' ? 'pending' : 'running';
  const failed = kind === 'github' ? 'failure' : 'failed';

  beforeAll(async () => {
    forge = await startForge({ kind });
    await forge.createRepo(repo, { 'README.md': '# app\n' });
    head = (await forge.branchHead(repo, 'main')) ?? '';
    token = forge.addToken(
      'gateway',
      kind === 'github' ? ['statuses:read', 'checks:read'] : ['read_api'],
    );
    secrets.set('forge', token);
  });
  afterAll(async () => {
    await forge.close();
  });

  it('reads the commit of a Flux revision: nothing yet, pending, then success', async () => {
    const c = check({ contexts: ['ci/e2e'] });
    expect(await run(c)).toEqual({
      state: 'Pending',
      message: `ci/e2e not reported yet at ${head.slice(0, 12)}`,
    });
    await forge.setStatus(repo, head, { context: 'ci/e2e', state: pending });
    expect(await run(c)).toEqual({
      state: 'Pending',
      message: `ci/e2e ${pending} at ${head.slice(0, 12)}`,
    });
    await forge.setStatus(repo, head, { context: 'ci/e2e', state: 'success' });
    expect(await run(c)).toEqual({
      state: 'Passed',
      message: `ci/e2e success at ${head.slice(0, 12)}`,
    });
  });

  it('reads a chart version through a tag template, and says so when the tag is missing', async () => {
    const sha = await forge.commit(
      repo,
      'main',
      { 'Chart.yaml': 'version: 2.0.0\n' },
      'chart 2.0.0',
    );
    await forge.createTag(repo, 'v2.0.0', sha);
    await forge.setStatus(repo, 'v2.0.0', {
      context: 'build',
      state: failed,
      description: 'broke',
    });
    const c = check({ ref: 'v{{revision}}' });
    expect(await run(c, '2.0.0')).toEqual({
      state: 'Failed',
      message: `build ${failed} at v2.0.0`,
    });
    const missing = await run(c, '9.9.9');
    expect(missing.state).toBe('Unknown');
    expect(missing.message).toContain('v9.9.9');
    const chart = await run(check(), '2.0.0');
    expect(chart.message).toContain('names no Git commit');
  });

  it('words each forge’s states as its own branch protection would', async () => {
    const sha = await forge.commit(repo, 'main', { 'x.txt': 'x\n' }, 'x');
    const revision = `main@sha1:${sha}`;
    if (kind === 'github') {
      await forge.setCheckRun(repo, sha, {
        name: 'lint',
        status: 'completed',
        conclusion: 'neutral',
      });
      await forge.setCheckRun(repo, sha, { name: 'e2e', status: 'in_progress' });
      expect((await run(check({ contexts: ['lint'] }), revision)).state).toBe('Passed');
      expect((await run(check(), revision)).state).toBe('Pending');
      await forge.setCheckRun(repo, sha, {
        name: 'e2e',
        status: 'completed',
        conclusion: 'skipped',
      });
      expect(await run(check(), revision)).toEqual({
        state: 'Failed',
        message: `e2e skipped at ${sha.slice(0, 12)}`,
      });
    } else {
      await forge.setStatus(repo, sha, { context: 'audit', state: 'failed', allowFailure: true });
      await forge.setStatus(repo, sha, { context: 'deploy', state: 'manual', allowFailure: true });
      expect((await run(check(), revision)).state).toBe('Passed');
      await forge.setStatus(repo, sha, { context: 'e2e', state: 'manual' });
      expect((await run(check(), revision)).state).toBe('Pending');
      await forge.setStatus(repo, sha, { context: 'e2e', state: 'skipped' });
      expect((await run(check(), revision)).state).toBe('Failed');
    }
  });

  it('is Unknown, quoting no token, when it cannot read', async () => {
    secrets.set('revoked', forge.addToken('old'));
    forge.revoke(secrets.get('revoked') ?? '');
    const revoked = await run(
      check({ repository: { ...check().repository, secretRef: 'revoked' } }),
    );
    expect(revoked.state).toBe('Unknown');
    expect(revoked.message).toContain('refused the token');
    const noSecret = await run(check({ repository: { ...check().repository, secretRef: 'none' } }));
    expect(noSecret.message).toBe('Secret apps/none has no key "token" (or does not exist)');
    const before = forge.requests.count({});
    const other = await runCommitStatusCheck(check(), 'apps', `main@sha1:${head}`, {
      ...deps(),
      settings: { allowedHosts: ['github.example.com'], allowPlainHttp: true },
    });
    expect(other.message).toContain("is not among the gateway's allowed pull-request hosts");
    const plain = await runCommitStatusCheck(check(), 'apps', `main@sha1:${head}`, {
      ...deps(),
      settings: { allowedHosts: [], allowPlainHttp: false },
    });
    expect(plain.message).toBe('the repository URL must use https (got http:)');
    expect(forge.requests.count({})).toBe(before);
    forge.faults.set({ errors: [{ code: 503 }] });
    const down = await run(check());
    forge.faults.clear('errors');
    expect(down.state).toBe('Unknown');
    expect(down.message).toContain('answered HTTP 503');
    forge.faults.set({ hang: { scope: 'api' } });
    const hung = await run(check({ timeoutMs: 200 }));
    forge.faults.clear('hang');
    expect(hung).toMatchObject({ state: 'Unknown' });
    expect(hung.message).toContain('did not answer in time');
    for (const outcome of [revoked, noSecret, other, plain, down, hung]) {
      expect(outcome.message).not.toContain(token);
      expect(outcome.message).not.toContain(secrets.get('revoked') ?? '');
    }
  });
});
