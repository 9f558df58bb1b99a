/**
 * Pull-request promotions through the real gateway, kube-sim and the simulated forge, on GitHub
 * and GitLab: one request per (environment, revision) with exactly the marked values changed,
 * updated for a newer revision, merged and verified, closed and not reopened, failures a person
 * can act on, retries after the forge's delay, and no token in any log line.
 */
import { startForge, type ForgeHandle, type ForgeKind } from 'forge-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  APP_NAME,
  createApp,
  eventually,
  launchGateway,
  postSigned,
  recordOf,
  rollOut,
  startTestFleet,
  upgradeBody,
  waitSteady,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';
import {
  fluxAppliesProd,
  prepareRepository,
  promotedFiles,
  repoName,
  repositoryFiles,
} from '../support/pull-request.js';

const RECEIVE_PACK = 'POST /{repo}.git/git-receive-pack';
const createRoute = (kind: ForgeKind): string =>
  kind === 'github' ? 'POST /repos/{owner}/{repo}/pulls' : 'POST /projects/{id}/merge_requests';
const PULL_REQUEST_CONFIG = {
  pullRequest: { allowPlainHttp: true, refreshIntervalMs: 0 },
  // The default claim timeout: it must exceed a pull-request attempt's bound (docs/configuration.md).
  retry: { maxAttempts: 3, backoffBaseMs: 100, backoffMaxMs: 1000 },
};

describe.each<ForgeKind>(['github', 'gitlab'])('pull-request promotions on %s', (kind) => {
  let fleet: TestFleet;
  let forge: ForgeHandle;
  let gw: RunningGateway;
  let token: string;
  const logLines: string[] = [];

  beforeAll(async () => {
    [fleet, forge] = await Promise.all([startTestFleet(), startForge({ kind })]);
    token = forge.addToken('promoter');
    gw = await launchGateway(fleet, {
      config: { promotion: PULL_REQUEST_CONFIG },
      logLines,
      logLevel: 'trace',
    });
  });
  afterAll(async () => {
    await gw.close();
    await forge.close();
    await fleet.close();
  });

  /** ns/podinfo promoting prod by pull request on `repo`; dev and staging then run `version`. */
  async function promoteTo(ns: string, version: string, options: { fresh?: boolean } = {}) {
    if (options.fresh !== false) await waitSteady(fleet, [gw], ns);
    rollOut(fleet.dev, ns, version);
    const staging = rollOut(fleet.staging, ns, version);
    await gw.gateway.resync();
    await gw.gateway.idle();
    return staging;
  }

  async function app(ns: string, options: { token?: string; files?: Record<string, string> } = {}) {
    const repo = repoName(kind, ns);
    const prodStrategy = await prepareRepository(fleet, forge, ns, {
      repo,
      token: options.token ?? token,
      version: '6.5.0',
      ...(options.files === undefined ? {} : { files: options.files }),
    });
    createApp(fleet, ns, { prodStrategy });
    return repo;
  }

  async function prodRecord(ns: string, revision: string, phase: 'Succeeded' | 'Failed') {
    return eventually(() => {
      const record = recordOf(fleet, ns, 'prod');
      if (record?.revision !== revision || record.phase !== phase)
        throw new Error(`prod's record is ${JSON.stringify(record)}`);
      return record;
    });
  }

  it('opens one request changing exactly the marked values, and only once however often it is told', async () => {
    const ns = `pr-${kind}-once`;
    const repo = await app(ns);
    const staging = await promoteTo(ns, '6.6.0');
    const record = await prodRecord(ns, '6.6.0', 'Succeeded');

    const requests = forge.pullRequests(repo);
    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(request).toMatchObject({
      title: `Promote ${ns}/${APP_NAME} in prod to 6.6.0`,
      head: `promotion-${ns}-${APP_NAME}-prod`,
      base: 'main',
      state: 'open',
    });
    expect(request?.body).toContain(
      `<details>\n<summary>metadata</summary>\n!!! DO NOT EDIT !!!\n\n${ns}/${APP_NAME}/prod\n</details>`,
    );
    expect(record.pullRequest).toEqual({
      url: expect.stringContaining(String(request?.number)),
      state: 'open',
    });
    const base = repositoryFiles(ns, '6.5.0');
    const wanted = promotedFiles(base, ns, '6.5.0', '6.6.0');
    for (const [path, text] of Object.entries(wanted)) {
      expect(await forge.readFile(repo, request?.head ?? '', path), path).toBe(text);
    }
    expect(wanted['envs/prod/podinfo.yaml']).not.toBe(base['envs/prod/podinfo.yaml']);
    expect(wanted['envs/staging/podinfo.yaml']).toBe(base['envs/staging/podinfo.yaml']);
    const log = await forge.log(repo, request?.head ?? '');
    expect(log[0]?.parents).toEqual([await forge.branchHead(repo, 'main')]);

    // 100 events for the same revision and 3 resync passes: nothing more reaches the forge.
    const pushes = forge.requests.count({ route: RECEIVE_PACK });
    const body = upgradeBody(staging);
    const answers = await Promise.all(
      Array.from({ length: 100 }, () =>
        postSigned(gw.url, '/v1/events/staging', body, fleet.key('staging')),
      ),
    );
    expect(answers.every((a) => a.status === 202)).toBe(true);
    for (let pass = 0; pass < 3; pass++) await gw.gateway.resync();
    await gw.gateway.idle();
    expect(forge.pullRequests(repo)).toHaveLength(1);
    expect(forge.requests.count({ route: RECEIVE_PACK })).toBe(pushes);
    expect(recordOf(fleet, ns, 'prod')).toMatchObject({ revision: '6.6.0', attempt: 1 });
  });

  it('updates the open request for a newer revision, then reports it merged and prod Deployed', async () => {
    const ns = `pr-${kind}-newer`;
    const repo = await app(ns);
    await promoteTo(ns, '6.6.0');
    await prodRecord(ns, '6.6.0', 'Succeeded');
    // Someone else's commit lands on main while the request is open.
    await forge.commit(repo, 'main', { 'README.md': '# fleet\n\nhotfix\n' }, 'hotfix');
    await promoteTo(ns, '6.7.0', { fresh: false });
    await prodRecord(ns, '6.7.0', 'Succeeded');

    const requests = forge.pullRequests(repo);
    expect(requests).toHaveLength(1);
    expect(requests[0]?.title).toBe(`Promote ${ns}/${APP_NAME} in prod to 6.7.0`);
    const head = requests[0]?.head ?? '';
    const log = await forge.log(repo, head);
    expect(log[0]?.parents).toEqual([await forge.branchHead(repo, 'main')]);
    expect(await forge.readFile(repo, head, 'README.md')).toBe('# fleet\n\nhotfix\n');
    const wanted = promotedFiles(repositoryFiles(ns, '6.5.0'), ns, '6.5.0', '6.7.0');
    expect(await forge.readFile(repo, head, 'envs/prod/image.yml')).toBe(
      wanted['envs/prod/image.yml'],
    );

    await forge.merge(repo, requests[0]?.number ?? 0);
    expect(await fluxAppliesProd(fleet, forge, repo, ns)).toBe('6.7.0');
    await gw.gateway.resync();
    await gw.gateway.idle();
    await eventually(() => {
      expect(recordOf(fleet, ns, 'prod')?.pullRequest?.state).toBe('merged');
      expect(gw.gateway.view({ namespace: ns, name: APP_NAME })?.decisions[2]).toMatchObject({
        reason: 'Deployed',
      });
    });
  });

  it('does not reopen a request a person closed; the next revision opens a new one', async () => {
    const ns = `pr-${kind}-closed`;
    const repo = await app(ns);
    await promoteTo(ns, '6.6.0');
    await prodRecord(ns, '6.6.0', 'Succeeded');
    await forge.close(repo, forge.pullRequests(repo)[0]?.number ?? 0);
    await gw.gateway.resync();
    await gw.gateway.idle();
    const closed = await eventually(() => {
      const record = recordOf(fleet, ns, 'prod');
      if (record?.pullRequest?.state !== 'closed') throw new Error(JSON.stringify(record));
      return record;
    });
    expect(closed.message).toContain('not proposed again');
    await gw.gateway.resync();
    await gw.gateway.idle();
    expect(forge.pullRequests(repo).filter((r) => r.state === 'open')).toHaveLength(0);

    await promoteTo(ns, '6.7.0', { fresh: false });
    await prodRecord(ns, '6.7.0', 'Succeeded');
    const requests = forge.pullRequests(repo);
    expect(requests).toHaveLength(2);
    expect(requests.find((r) => r.state === 'open')?.title).toContain('6.7.0');
  });

  it.each([
    { name: 'no marker', reason: 'NoMarker' },
    { name: 'a bad token', reason: 'Unauthorized' },
    { name: 'a missing repository', reason: 'NotFound' },
    { name: 'a protected promotion branch', reason: 'BranchProtected' },
  ])('fails with $name, says why and does not retry', async ({ name, reason }) => {
    const ns = `pr-${kind}-${reason.toLowerCase()}`;
    const repo = await app(ns, {
      ...(name === 'no marker' ? { files: { 'envs/prod/podinfo.yaml': 'version: 6.5.0\n' } } : {}),
      ...(name === 'a bad token' ? { token: `${token}x` } : {}),
    });
    if (name === 'a missing repository') {
      // The Pipeline names a repository that does not exist.
      const stored = fleet.management.get(
        'pipelines.weave.works/v1alpha1',
        'Pipeline',
        ns,
        APP_NAME,
      );
      const spec = JSON.parse(JSON.stringify(stored?.spec)) as {
        environments: { promotion?: { strategy: { 'pull-request': { url: string } } } }[];
      };
      const prod = spec.environments[2]?.promotion?.strategy['pull-request'];
      if (prod !== undefined) prod.url = `${forge.url}/acme/nowhere-${ns}`;
      fleet.management.apply({ ...stored, spec });
    }
    if (name === 'a protected promotion branch') {
      await forge.createBranch(repo, `promotion-${ns}-${APP_NAME}-prod`);
      forge.protectBranch(repo, `promotion-${ns}-${APP_NAME}-prod`);
    }
    const creations = forge.requests.count({ route: createRoute(kind) });
    await promoteTo(ns, '6.6.0');
    const record = await prodRecord(ns, '6.6.0', 'Failed');
    expect(record).toMatchObject({ retryable: false, attempt: 1 });
    expect(record.message).toMatch(new RegExp(`^${reason}: `));
    // Other tests' open requests are refreshed by every pass (API reads); Git is ours alone.
    const before = forge.requests.count({ scope: 'git' });
    // Past the longest retry backoff on the gateway's clock: a pass now would retry, if it could.
    gw.advanceClock(PULL_REQUEST_CONFIG.retry.backoffMaxMs);
    await gw.gateway.resync();
    await gw.gateway.idle();
    expect(recordOf(fleet, ns, 'prod')).toMatchObject({ attempt: 1, phase: 'Failed' });
    expect(forge.requests.count({ scope: 'git' })).toBe(before);
    expect(forge.requests.count({ route: createRoute(kind) })).toBe(creations);
  });

  it.each([
    { name: 'a 503', waitMs: 0 },
    { name: 'a rate limit', waitMs: 2000 },
  ])('retries after $name, not before the forge allows, with one push', async ({ waitMs }) => {
    // Only the request's creation fails: other tests' open requests are refreshed meanwhile.
    const routes = [createRoute(kind)];
    const faults =
      waitMs === 0
        ? { errors: [{ code: 503, count: 1, routes }] }
        : { rateLimit: { count: 1, style: 'secondary' as const, retryAfterSeconds: 2, routes } };
    const ns = `pr-${kind}-${waitMs === 0 ? '503' : 'limit'}`;
    const repo = await app(ns);
    await waitSteady(fleet, [gw], ns);
    forge.faults.set(faults);
    const pushes = forge.requests.count({ route: RECEIVE_PACK });
    const started = Date.now();
    await promoteTo(ns, '6.6.0', { fresh: false });
    const done = await prodRecord(ns, '6.6.0', 'Succeeded');
    // The first attempt failed after `started`; the forge asked for `waitMs` from then on.
    expect(Date.now() - started).toBeGreaterThanOrEqual(waitMs);
    expect(done.attempt).toBe(2);
    expect(forge.pullRequests(repo)).toHaveLength(1);
    expect(forge.requests.count({ route: RECEIVE_PACK }) - pushes).toBe(1);
    forge.faults.clear();
  });

  it('opens one request when two replicas race on the same promotion', async () => {
    const second = await launchGateway(fleet, {
      instanceId: 'gateway-second',
      config: { promotion: PULL_REQUEST_CONFIG },
    });
    try {
      const ns = `pr-${kind}-race`;
      const repo = await app(ns);
      await waitSteady(fleet, [gw, second], ns);
      const pushes = forge.requests.count({ route: RECEIVE_PACK });
      rollOut(fleet.dev, ns, '6.6.0');
      rollOut(fleet.staging, ns, '6.6.0');
      await Promise.all([gw.gateway.resync(), second.gateway.resync()]);
      await Promise.all([gw.gateway.idle(), second.gateway.idle()]);
      const record = await prodRecord(ns, '6.6.0', 'Succeeded');
      expect(record.attempt).toBe(1);
      expect(forge.pullRequests(repo)).toHaveLength(1);
      expect(forge.requests.count({ route: RECEIVE_PACK }) - pushes).toBe(1);
    } finally {
      await second.close();
    }
  });

  it('never logs the token, at any level', () => {
    expect(logLines.length).toBeGreaterThan(0);
    const leaks = logLines.filter((line) => line.includes(token));
    expect(leaks).toEqual([]);
  });
});
