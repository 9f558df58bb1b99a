/**
 * The CheckBook: which reads a decision starts, one read per (check, revision) however many
 * Pipelines wait, results cached for the check's time (Unknown for at most 30 s) and shown
 * while being renewed, bounded concurrency, and every waiting Pipeline re-checked once. The
 * last block runs the real HTTP runner against a server on loopback that holds its answer.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckBook, UNKNOWN_RETRY_MS } from '../../../src/checks/check-book.js';
import type { CheckOutcome, ResolvedCheck } from '../../../src/checks/resolve.js';
import { checkRunner } from '../../../src/checks/runner.js';
import type { Evaluation } from '../../../src/evaluate/decisions.js';
import { createLogger } from '../../../src/log.js';
import type { PipelineId } from '../../../src/pipeline/id.js';
import type { CheckSpec, Pipeline, StrategySpec } from '../../../src/pipeline/pipeline-resource.js';
import { testGuard } from '../../support/address-guard.js';
import { deferred } from '../../support/fake-scheduler.js';

const E2E: CheckSpec = { name: 'e2e', commitStatus: { contexts: ['ci/e2e'], cacheSeconds: 60 } };
const HEALTH: CheckSpec = { name: 'health', http: { url: 'https://x/', cacheSeconds: 300 } };

const PULL_REQUEST: StrategySpec = {
  'pull-request': {
    type: 'github',
    url: 'https://github.com/acme/fleet',
    baseBranch: 'main',
    secretRef: { name: 'forge' },
  },
};

/** Pipeline namespace/name, dev -> prod, prod promoted by `strategy` with `checks`. */
function pipeline(
  name: string,
  checks: CheckSpec[] = [E2E, HEALTH],
  namespace = 'apps',
  strategy: StrategySpec = PULL_REQUEST,
): Pipeline {
  return {
    apiVersion: 'pipelines.weave.works/v1alpha1',
    kind: 'Pipeline',
    metadata: { name, namespace },
    spec: {
      appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name },
      environments: [
        { name: 'dev', targets: [{ namespace: 'dev' }] },
        { name: 'prod', targets: [{ namespace: 'prod' }], promotion: { strategy, checks } },
      ],
    },
  };
}

/** prod held by the checks gate at `revision` (or, with `reason`, by something else). */
function held(revision = '1.2.3', reason = 'CheckUnknown'): Evaluation {
  return {
    decisions: [
      { environment: 'dev', outcome: 'Source', reason: 'Ready', message: '' },
      { environment: 'prod', outcome: 'Waiting', revision, reason, message: '' },
    ],
  };
}

/** A runner whose runs the test ends by hand, recording each. */
function manualRunner() {
  const runs: { check: ResolvedCheck; revision: string; end: (o: CheckOutcome) => void }[] = [];
  const run = (check: ResolvedCheck, _namespace: string, revision: string) =>
    new Promise<CheckOutcome>((resolve) => runs.push({ check, revision, end: resolve }));
  return { runs, run };
}

function book(run: ConstructorParameters<typeof CheckBook>[0]['run'], maxConcurrent = 8) {
  let now = 1_000_000;
  const rechecked: PipelineId[] = [];
  const lines: string[] = [];
  const b = new CheckBook({
    run,
    now: () => now,
    maxConcurrent,
    onResult: (id) => rechecked.push(id),
    logger: createLogger('info', { write: (line: string) => void lines.push(line) }),
  });
  return { b, rechecked, lines, advance: (ms: number) => (now += ms), at: () => now };
}

describe('CheckBook', () => {
  it('reads the checks of a promoted revision an automatic rollback verifies', () => {
    const { runs, run } = manualRunner();
    const { b } = book(run);
    const verifying: Evaluation = {
      decisions: [
        { environment: 'dev', outcome: 'Source', reason: 'Ready', message: '' },
        {
          ...{ environment: 'prod', outcome: 'UpToDate', revision: '2.0.0', reason: 'Deployed' },
          ...{ message: '', verifying: { revision: '2.0.0', until: 2_000_000 } },
        },
      ],
    };
    expect(b.request(pipeline('a'), verifying)).toBe(2);
    expect(runs.map((r) => r.revision)).toEqual(['2.0.0', '2.0.0']);
  });

  it('reads every check of an environment held by the checks gate, and nothing else', async () => {
    const { runs, run } = manualRunner();
    const { b } = book(run);
    expect(b.request(pipeline('a'), held('1.2.3', 'SoakPending'))).toBe(0);
    expect(b.request(pipeline('a', []), held())).toBe(0);
    expect(b.request(pipeline('a'), held())).toBe(2);
    expect(runs.map((r) => [r.check.kind, r.revision])).toEqual([
      ['commitStatus', '1.2.3'],
      ['http', '1.2.3'],
    ]);
    // The commit-status check took its repository from the pull-request strategy.
    expect(runs[0]?.check).toMatchObject({
      repository: { type: 'github', url: 'https://github.com/acme/fleet', secretRef: 'forge' },
      contexts: ['ci/e2e'],
      timeoutMs: 10_000,
      cacheMs: 60_000,
    });
    for (const r of runs) r.end({ state: 'Passed', message: 'ok' });
    await b.settled();
  });

  it('reads only the shadow checks of a revision pending for another reason, while it is pending', async () => {
    const { runs, run } = manualRunner();
    const { b } = book(run);
    const checks = [E2E, { ...HEALTH, mode: 'Shadow' as const }];
    expect(b.request(pipeline('a', checks), held('1.2.3', 'ApprovalRequired'))).toBe(1);
    expect(runs.map((r) => [r.check.kind, r.revision])).toEqual([['http', '1.2.3']]);
    const settled: Evaluation = {
      decisions: [
        { environment: 'dev', outcome: 'Source', reason: 'Ready', message: '' },
        {
          environment: 'prod',
          outcome: 'UpToDate',
          revision: '1.2.4',
          reason: 'Deployed',
          message: '',
        },
      ],
    };
    expect(b.request(pipeline('a', checks), settled)).toBe(0);
    for (const r of runs) r.end({ state: 'Failed', message: 'budget spent' });
    await b.settled();
  });

  it('runs one read per (check, revision) however many Pipelines and checks ask, then re-checks each once', async () => {
    const { runs, run } = manualRunner();
    const { b, rechecked } = book(run);
    for (let i = 0; i < 5; i++) {
      b.request(pipeline('a', [E2E]), held());
      b.request(pipeline('b', [E2E]), held());
    }
    expect(runs).toHaveLength(1);
    expect(b.running).toBe(1);
    runs[0]?.end({ state: 'Pending', message: 'ci/e2e pending at abc' });
    await b.settled();
    expect(rechecked.sort()).toEqual(['apps/a', 'apps/b']);
    expect(b.resultsFor(pipeline('b', [E2E]))).toEqual({
      prod: [
        {
          index: 0,
          revision: '1.2.3',
          state: 'Pending',
          message: 'ci/e2e pending at abc',
          expiresAt: expect.any(Number) as number,
        },
      ],
    });
  });

  it('caches a result for its stated time, and shows it while it is read again', async () => {
    const { runs, run } = manualRunner();
    const { b, advance, at } = book(run);
    const p = pipeline('a', [HEALTH]);
    b.request(p, held());
    runs[0]?.end({ state: 'Passed', message: 'answered HTTP 200' });
    await b.settled();
    const first = b.resultsFor(p)?.prod?.[0];
    expect(first?.expiresAt).toBe(at() + 300_000);
    advance(299_999);
    expect(b.request(p, held())).toBe(0);
    advance(1);
    expect(b.request(p, held())).toBe(1);
    // While the renewal runs, the old result is what the gate sees (expired: it holds).
    expect(b.resultsFor(p)?.prod).toEqual([first]);
    runs[1]?.end({ state: 'Failed', message: 'answered HTTP 404, expected 2xx' });
    await b.settled();
    expect(b.resultsFor(p)?.prod?.[0]).toMatchObject({
      state: 'Failed',
      expiresAt: at() + 300_000,
    });
  });

  it('keeps an Unknown result at most 30 s, and each revision apart', async () => {
    const { runs, run } = manualRunner();
    const { b, at } = book(run);
    const p = pipeline('a', [HEALTH]);
    b.request(p, held('1.2.3'));
    b.request(p, held('1.2.4'));
    expect(runs).toHaveLength(2);
    runs[0]?.end({ state: 'Unknown', message: 'could not be reached' });
    runs[1]?.end({ state: 'Passed', message: 'ok' });
    await b.settled();
    const results = b.resultsFor(p)?.prod ?? [];
    expect(results.map((r) => [r.revision, r.state, r.expiresAt - at()])).toEqual([
      ['1.2.3', 'Unknown', UNKNOWN_RETRY_MS],
      ['1.2.4', 'Passed', 300_000],
    ]);
  });

  it('never reuses a result for a changed check or another namespace', async () => {
    const { runs, run } = manualRunner();
    const { b } = book(run);
    b.request(pipeline('a', [HEALTH]), held());
    runs[0]?.end({ state: 'Passed', message: 'ok' });
    await b.settled();
    const changed: CheckSpec = {
      ...HEALTH,
      http: { url: 'https://x/', cacheSeconds: 300, expect: { status: 204 } },
    };
    expect(b.resultsFor(pipeline('a', [changed]))).toEqual({ prod: [] });
    expect(b.resultsFor(pipeline('a', [HEALTH], 'other'))).toEqual({ prod: [] });
    expect(b.request(pipeline('a', [changed]), held())).toBe(1);
    expect(b.request(pipeline('a', [HEALTH], 'other'), held())).toBe(1);
    for (const r of runs.slice(1)) r.end({ state: 'Passed', message: 'ok' });
    await b.settled();
  });

  it('runs at most maxConcurrent reads at once', async () => {
    const { runs, run } = manualRunner();
    const { b } = book(run, 2);
    const checks = Array.from({ length: 5 }, (_, i): CheckSpec => ({
      name: `c${String(i)}`,
      http: { url: `https://x/${String(i)}` },
    }));
    expect(b.request(pipeline('a', checks), held())).toBe(5);
    await Promise.resolve();
    expect(runs).toHaveLength(2);
    runs[0]?.end({ state: 'Passed', message: 'ok' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(runs).toHaveLength(3);
    for (let i = 1; i < 5; i++) {
      runs[i]?.end({ state: 'Passed', message: 'ok' });
      await new Promise((resolve) => setImmediate(resolve));
    }
    await b.settled();
    expect(runs).toHaveLength(5);
  });

  it('turns a runner that throws into Unknown, and a spec without a repository into Unknown', async () => {
    const { b, rechecked } = book(() => Promise.reject(new Error('bug')));
    const p = pipeline('a', [E2E]);
    b.request(p, held());
    await b.settled();
    expect(b.resultsFor(p)?.prod?.[0]).toMatchObject({
      state: 'Unknown',
      message: 'the check could not be run',
    });
    expect(rechecked).toEqual(['apps/a']);
    const real = checkRunner({
      fetch,
      httpFetch: fetch,
      readSecret: () => Promise.resolve(undefined),
      guard: testGuard([]),
      settings: { allowedHosts: [], allowPlainHttp: false },
      now: Date.now,
    });
    const { b: other } = book(real);
    const notified = pipeline('n', [E2E], 'apps', { notification: {} });
    other.request(notified, held());
    await other.settled();
    expect(other.resultsFor(notified)?.prod?.[0]).toMatchObject({
      state: 'Unknown',
      message:
        'the check names no repository, and the environment has no pull-request strategy to take it from',
    });
  });
});

describe('CheckBook over real HTTP', () => {
  const TOKEN = 'sekret-token-9c1e';
  let server: Server;
  let base: string;
  let requests = 0;
  /** Resolves with the answer to the first request, which the test sends when it chooses. */
  const firstAnswer = deferred<() => void>();

  beforeAll(async () => {
    server = createServer((req, res) => {
      requests += 1;
      firstAnswer.resolve(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: 'red', echo: req.headers.authorization }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends one request for 40 asks of the same (check, revision), and logs no secret', async () => {
    const run = checkRunner({
      fetch,
      readSecret: (_ns, _name, key) =>
        Promise.resolve(key === 'token' ? Buffer.from(TOKEN) : undefined),
      httpFetch: fetch,
      guard: testGuard([`${base}/`]),
      settings: { allowedHosts: [], allowPlainHttp: false },
      now: Date.now,
    });
    const { b, rechecked, lines } = book(run);
    const spec: CheckSpec = {
      name: 'health',
      http: {
        url: `${base}/health`,
        expect: { json: { path: 'echo', equals: 'x' } },
        secretRef: { name: 'status' },
      },
    };
    const asks = Array.from({ length: 40 }, (_, i) => pipeline(`p${String(i % 4)}`, [spec]));
    for (const p of asks.slice(0, 20)) b.request(p, held());
    // The one read is at the server, unanswered: the other asks arrive while it is in flight.
    const answer = await firstAnswer.promise;
    for (const p of asks.slice(20)) b.request(p, held());
    answer();
    await b.settled();
    expect(requests).toBe(1);
    expect(new Set(rechecked).size).toBe(4);
    const result = b.resultsFor(asks[0] ?? pipeline('x'))?.prod?.[0];
    expect(result).toMatchObject({ state: 'Failed' });
    expect(result?.message).toContain('[redacted]');
    expect(lines.join('\n')).toContain('external check result');
    expect(lines.join('\n')).not.toContain(TOKEN);
    expect(JSON.stringify(result)).not.toContain(TOKEN);
  });
});
