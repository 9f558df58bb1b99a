/**
 * The pull-request strategy's Git side against the simulated forges (real Git smart HTTP over
 * real repositories): exactly the marked values change, in one commit on the base's head; a
 * retry pushes nothing; failures come back classified and secret-free. Also the transport's
 * time limit against a socket that never answers.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startForge, type ForgeHandle, type ForgeKind } from 'forge-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitHttpClient } from '../../src/promote/strategies/pull-request/git-http.js';
import { gitPusher } from '../../src/promote/strategies/pull-request/git-push.js';
import { gitOnFirstPush } from '../../src/promote/strategies/pull-request/pull-request-ports.js';
import type { PromotionChange, PushOutcome } from '../../src/forge/forge-model.js';
import { closedPort } from '../support/net.js';

const run = promisify(execFile);
const T0 = Date.parse('2026-03-01T12:00:00Z');
const DEV = 'apps:podinfo:dev';
const BRANCH = 'promotion-apps-podinfo-dev';
const mark = (env: string) => `# {"$promotion": "apps:podinfo:${env}"}`;

/** The repository's files with dev's marked values at `dev` (prod stays at 6.4.0). */
function files(dev: string): Record<string, string> {
  return {
    'README.md': `# fleet\n\ndev runs 6.5.0 ${mark('dev')}\n`,
    'envs/dev/podinfo.yaml': [
      '# dev: changed by promotion pull requests',
      'apiVersion: helm.toolkit.fluxcd.io/v2',
      'kind: HelmRelease',
      'metadata: {name: podinfo}  # flow style kept',
      'spec:',
      '  chart:',
      '    spec:',
      `      version: "${dev}" ${mark('dev')}`,
      '---',
      '# a second document',
      'apiVersion: v1',
      'kind: ConfigMap',
      'data:',
      `  version: ${dev}    ${mark('dev')}`,
      '  pinned: 6.5.0',
      `  prod: 6.4.0 ${mark('prod')}`,
      '',
    ].join('\n'),
    'envs/dev/image.yml': `image:\n  tag: '${dev}' ${mark('dev')}\n`,
    'envs/dev/plain.yaml': 'version: 6.5.0 # not a marker\n',
    'envs/prod/podinfo.yaml': `version: 6.4.0 ${mark('prod')}\n`,
  };
}
const CHANGED = ['envs/dev/image.yml', 'envs/dev/podinfo.yaml'];

/** A fetch that records Git's pack exchanges: upload-pack (fetches) and receive-pack (pushes). */
function recordingFetch() {
  const uploads: { request: string; answer: Uint8Array }[] = [];
  const pushes: Uint8Array[] = [];
  const wrapped: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    const url = input instanceof Request ? input.url : String(input);
    const body = init?.body as Uint8Array;
    if (url.endsWith('/git-receive-pack')) pushes.push(body);
    if (!url.endsWith('/git-upload-pack')) return res;
    const answer = new Uint8Array(await res.clone().arrayBuffer());
    uploads.push({ request: Buffer.from(body).toString('latin1'), answer });
    return res;
  };
  return { uploads, pushes, fetch: wrapped };
}

/** The object count in the header of the pack inside a Git request or answer. */
function packObjects(bytes: Uint8Array): number {
  const at = Buffer.from(bytes).indexOf('PACK');
  expect(at).toBeGreaterThan(0);
  return Buffer.from(bytes).readUInt32BE(at + 8);
}

describe.each<{ kind: ForgeKind; owner: string; reason: RegExp; readScope: string }>([
  {
    kind: 'github',
    owner: 'acme',
    reason: /protected branch hook declined/,
    readScope: 'contents:read',
  },
  {
    kind: 'gitlab',
    owner: 'acme/platform',
    reason: /pre-receive hook declined/,
    readScope: 'read_repository',
  },
])('the Git side against $kind', ({ kind, owner, reason, readScope }) => {
  let forge: ForgeHandle;
  let dir: string;
  let token: string;
  let repos = 0;
  const messages: string[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pull-request-git-'));
    forge = await startForge({ kind, dir });
    token = forge.addToken('promoter');
  });
  afterAll(async () => {
    await forge.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** A new repository holding `files('6.5.0')` on main. */
  async function newRepo(): Promise<string> {
    const name = `${owner}/fleet-${String(++repos)}`;
    await forge.createRepo(name, files('6.5.0'));
    return name;
  }

  function change(repo: string, more: Partial<PromotionChange> = {}): PromotionChange {
    return {
      // Without `.git`: the pusher appends it.
      repository: { kind, url: forge.cloneUrl(repo).replace(/\.git$/, ''), baseBranch: 'main' },
      credentials: { token },
      branch: BRANCH,
      marker: DEV,
      revision: '6.6.0',
      author: { name: 'Promotion Bot', email: 'bot@example.com' },
      message: 'Promote apps/podinfo in dev to 6.6.0',
      now: T0,
      ...more,
    };
  }

  /** The failure of `outcome`, after checking that no message carries the token. */
  function failureOf(outcome: PushOutcome) {
    expect(outcome.outcome).toBe('Failed');
    if (outcome.outcome !== 'Failed') throw new Error('not a failure');
    messages.push(outcome.failure.message);
    expect(JSON.stringify(outcome)).not.toContain(token);
    return outcome.failure;
  }

  /** `git ls-tree -r` of `ref`: path -> blob id. */
  async function tree(repo: string, ref: string): Promise<Record<string, string>> {
    const gitDir = join(dir, `${repo}.git`);
    const { stdout } = await run('git', ['--git-dir', gitDir, 'ls-tree', '-r', ref]);
    const entries = stdout
      .trim()
      .split('\n')
      .map((line): [string, string] => {
        const [mode = '', path = ''] = line.split('\t');
        return [path, mode.split(' ')[2] ?? ''];
      });
    return Object.fromEntries(entries);
  }

  it('sets exactly the marked values, in one commit on the base head', async () => {
    const repo = await newRepo();
    const base = await forge.branchHead(repo, 'main');
    const recorder = recordingFetch();
    const pushed = await gitPusher({ fetch: recorder.fetch }).push(change(repo));
    expect(pushed).toMatchObject({ outcome: 'Pushed', base, files: CHANGED });
    if (pushed.outcome !== 'Pushed') return;
    // A thin push: the commit, the trees it changed (root, envs, envs/dev) and its 2 blobs.
    expect(recorder.pushes.map(packObjects)).toEqual([1 + 3 + 2]);
    expect(await forge.branchHead(repo, BRANCH)).toBe(pushed.commit);
    const [head, ...rest] = await forge.log(repo, BRANCH);
    expect(rest.map((c) => c.sha)).toEqual((await forge.log(repo, 'main')).map((c) => c.sha));
    expect(head).toMatchObject({
      sha: pushed.commit,
      parents: [base],
      author: { name: 'Promotion Bot', email: 'bot@example.com' },
    });
    expect(head?.message.trim()).toBe('Promote apps/podinfo in dev to 6.6.0');
    expect(Date.parse(head?.author.date ?? '')).toBe(T0);
    const expected = files('6.6.0');
    const [before, after] = [await tree(repo, 'main'), await tree(repo, BRANCH)];
    expect(Object.keys(after).sort()).toEqual(Object.keys(expected).sort());
    for (const [path, text] of Object.entries(expected)) {
      expect(await forge.readFile(repo, BRANCH, path)).toBe(text);
      // Untouched files keep their blobs, byte for byte.
      if (!CHANGED.includes(path)) expect(after[path]).toBe(before[path]);
      else expect(after[path]).not.toBe(before[path]);
    }
  });

  it('pushes nothing when retried with the same change', async () => {
    const repo = await newRepo();
    const first = await gitPusher().push(change(repo));
    forge.requests.reset();
    const again = await gitPusher().push(change(repo, { now: T0 + 60_000 }));
    expect(again).toEqual({ ...first, outcome: 'UpToDate' });
    expect(forge.requests.count({ scope: 'git' })).toBeGreaterThan(0);
    const { entries } = forge.requests.snapshot();
    expect(entries.filter((e) => e.route.includes('git-receive-pack'))).toEqual([]);
  });

  it("pushes as well through the production ports' pusher, which loads Git on its first push", async () => {
    const repo = await newRepo();
    const pusher = gitOnFirstPush({});
    const first = await pusher.push(change(repo));
    expect(first).toMatchObject({ outcome: 'Pushed', base: await forge.branchHead(repo, 'main') });
    if (first.outcome !== 'Pushed') return;
    expect(await forge.branchHead(repo, BRANCH)).toBe(first.commit);
    const again = await pusher.push(change(repo, { now: T0 + 60_000 }));
    expect(again).toEqual({ ...first, outcome: 'UpToDate' });
  });

  it('replaces the commit with a newer revision on the current base', async () => {
    const repo = await newRepo();
    await gitPusher().push(change(repo));
    const hotfix = await forge.commit(
      repo,
      'main',
      { 'README.md': '# fleet\n\nhotfix\n' },
      'Hotfix',
    );
    const newer = await gitPusher().push(
      change(repo, { revision: '6.7.0', message: 'Promote to 6.7.0', now: T0 + 3_600_000 }),
    );
    expect(newer).toMatchObject({ outcome: 'Pushed', base: hotfix, files: CHANGED });
    const log = await forge.log(repo, BRANCH);
    expect(log.map((c) => c.parents)[0]).toEqual([hotfix]);
    expect(log.slice(1).map((c) => c.sha)).toEqual(
      (await forge.log(repo, 'main')).map((c) => c.sha),
    );
    expect(await forge.readFile(repo, BRANCH, 'README.md')).toBe('# fleet\n\nhotfix\n');
    expect(await forge.readFile(repo, BRANCH, 'envs/dev/image.yml')).toBe(
      files('6.7.0')['envs/dev/image.yml'],
    );
  });

  it('fetches the base at depth 1 and no other branch or tag', async () => {
    const repo = await newRepo();
    for (let i = 1; i <= 4; i++)
      await forge.commit(
        repo,
        'main',
        { 'history.txt': `change ${String(i)}\n` },
        `Change ${String(i)}`,
      );
    expect(await forge.log(repo, 'main')).toHaveLength(5);
    const recorder = recordingFetch();
    const pushed = await gitPusher({ fetch: recorder.fetch }).push(change(repo));
    expect(pushed.outcome).toBe('Pushed');
    // No promotion branch yet: one upload-pack exchange, for main alone.
    expect(recorder.uploads).toHaveLength(1);
    const { request, answer } = recorder.uploads[0]!;
    const main = await forge.branchHead(repo, 'main');
    expect(request.match(/want [0-9a-f]{40}/g)).toEqual([`want ${main!}`]);
    expect(request).toContain('deepen 1');
    expect(request).not.toContain('include-tag');
    // The head commit, its 4 trees (root, envs, dev, prod) and 6 blobs: no older commit.
    expect(packObjects(answer)).toBe(1 + 4 + 6);
  });

  it('reports NoMarker when no file marks the environment', async () => {
    const repo = await newRepo();
    const failure = failureOf(await gitPusher().push(change(repo, { marker: 'apps:podinfo:qa' })));
    expect(failure).toEqual({
      reason: 'NoMarker',
      message: 'no YAML file on main carries the marker {"$promotion": "apps:podinfo:qa"}',
      retryable: false,
    });
  });

  it('reports AlreadyAtRevision and pushes nothing when the base has the revision', async () => {
    const repo = await newRepo();
    const base = await forge.branchHead(repo, 'main');
    expect(await gitPusher().push(change(repo, { revision: '6.5.0' }))).toEqual({
      outcome: 'AlreadyAtRevision',
      base,
    });
    expect(await forge.branchHead(repo, BRANCH)).toBeUndefined();
  });

  it('reports a protected promotion branch as BranchProtected', async () => {
    const repo = await newRepo();
    forge.protectBranch(repo, BRANCH);
    const failure = failureOf(await gitPusher().push(change(repo)));
    expect(failure).toMatchObject({ reason: 'BranchProtected', retryable: false });
    expect(failure.message).toContain(BRANCH);
    expect(failure.message).toMatch(reason);
  });

  it('uses the Secret username and password for Git when both are set', async () => {
    const repo = await newRepo();
    const credentials = { token: 'not-a-token', username: 'someone', password: token };
    expect((await gitPusher().push(change(repo, { credentials }))).outcome).toBe('Pushed');
  });

  it('classifies refusals: bad token, read-only token, missing repository or branch', async () => {
    const repo = await newRepo();
    const bad = change(repo, { credentials: { token: `${token}x` } });
    expect(failureOf(await gitPusher().push(bad))).toMatchObject({
      reason: 'Unauthorized',
      retryable: false,
    });
    expect(JSON.stringify(await gitPusher().push(bad))).not.toContain(`${token}x`);
    const readOnly = change(repo, {
      credentials: { token: forge.addToken('reader', [readScope]) },
    });
    expect(failureOf(await gitPusher().push(readOnly))).toMatchObject({
      reason: 'Forbidden',
      retryable: false,
    });
    const missing = failureOf(await gitPusher().push(change(`${owner}/nothing-here`)));
    expect(missing).toMatchObject({ reason: 'NotFound', retryable: false });
    const noBase = change(repo);
    noBase.repository.baseBranch = 'release';
    const noBranch = failureOf(await gitPusher().push(noBase));
    expect(noBranch).toMatchObject({ reason: 'NotFound', retryable: false });
    expect(noBranch.message).toContain('release');
  });

  it('reports a forge answering 503 to Git as ForgeUnavailable, retryable', async () => {
    const repo = await newRepo();
    forge.faults.set({ errors: [{ code: 503, scope: 'git' }] });
    try {
      const failure = failureOf(await gitPusher().push(change(repo)));
      expect(failure).toMatchObject({ reason: 'ForgeUnavailable', retryable: true });
    } finally {
      forge.faults.clear();
    }
  });

  it('never puts the token in a failure message', () => {
    expect(messages.length).toBeGreaterThanOrEqual(6);
    for (const message of messages) expect(message).not.toContain(token);
  });
});

describe('the Git transport', () => {
  let server: Server;
  let url = '';

  beforeAll(async () => {
    // Accepts connections and never answers.
    server = createServer(() => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) =>
      server.close(() => {
        resolve();
      }),
    );
  });

  const change = (repoUrl: string): PromotionChange => ({
    repository: { kind: 'github', url: repoUrl, baseBranch: 'main' },
    credentials: { token: 'ghp_secret' },
    branch: BRANCH,
    marker: DEV,
    revision: '6.6.0',
    author: { name: 'Promotion Bot', email: 'bot@example.com' },
    message: 'Promote',
    now: T0,
  });

  it('gives up on a forge that never answers after timeoutMs', async () => {
    const request = gitHttpClient({ timeoutMs: 150 }).request({ url: `${url}/x.git/info/refs` });
    await expect(request).rejects.toMatchObject({ name: 'TimeoutError' });
    const outcome = await gitPusher({ timeoutMs: 150 }).push(change(`${url}/acme/fleet`));
    expect(outcome).toMatchObject({
      outcome: 'Failed',
      failure: { reason: 'Timeout', retryable: true },
    });
  });

  it('reports a refused connection as Unreachable, retryable', async () => {
    const port = await closedPort();
    const outcome = await gitPusher().push(change(`http://127.0.0.1:${String(port)}/acme/fleet`));
    expect(outcome).toMatchObject({
      outcome: 'Failed',
      failure: { reason: 'Unreachable', retryable: true },
    });
  });

  it('refuses URLs that are not http(s) or carry credentials, without echoing them', async () => {
    const ssh = await gitPusher().push(change('ssh://git@github.com/acme/fleet'));
    expect(ssh).toMatchObject({
      outcome: 'Failed',
      failure: { reason: 'Invalid', retryable: false },
    });
    const withPassword = await gitPusher().push(
      change('https://bot:hunter2@github.com/acme/fleet'),
    );
    expect(withPassword).toMatchObject({ outcome: 'Failed', failure: { reason: 'Invalid' } });
    expect(JSON.stringify(withPassword)).not.toContain('hunter2');
  });
});
