/**
 * After a management API outage, on fakes and hand-driven time: when the Pipeline watch
 * connects again, or leader election gets the Lease back, the Pipelines a check may move on (a
 * Claimed record, a Promote or Waiting decision, a check backing off after failures) are checked
 * at once, ahead of a resync backlog and with their backoff forgotten; the others are left alone.
 */
import { describe, expect, it } from 'vitest';
import { PipelineCatalog } from '../../../src/catalog/catalog.js';
import { defaultConfig } from '../../../src/config/load.js';
import type { EnvironmentDecision } from '../../../src/evaluate/decisions.js';
import { PipelineQueue } from '../../../src/hints/pipeline-queue.js';
import { PipelineWatcher } from '../../../src/kube/pipeline-watch.js';
import { createLogger } from '../../../src/log.js';
import { pipelineId, type PipelineId } from '../../../src/pipeline/id.js';
import type { Pipeline, PipelineStatus } from '../../../src/pipeline/pipeline-resource.js';
import type { ProcessResult, WorkQueueEvent } from '../../../src/queue/queue-model.js';
import { pendingPipelines } from '../../../src/reconcile/pending.js';
import { pipelineEvents } from '../../../src/reconcile/pipeline-events.js';
import type { PipelineView } from '../../../src/reconcile/view.js';
import { resyncLeadership } from '../../../src/leadership/leadership.js';
import { Resync } from '../../../src/resync/resync.js';
import { VerifiedTargets } from '../../../src/verify/verified-targets.js';
import { Verifier } from '../../../src/verify/verifier.js';
import { recoveryRechecks, type RecoveryCause } from '../../../src/wiring/recovery.js';
import { FakeLeases } from '../../support/fake-lease-store.js';
import { fakeInformers, fakeManagement } from '../../support/fake-informer.js';
import { advanceInSteps, deferred, FakeScheduler } from '../../support/fake-scheduler.js';
import { samplePipeline } from '../../support/pipeline-fixtures.js';

const T0 = Date.parse('2026-11-21T10:00:00Z');
const OUTAGE_MS = 20_000;
const id = (name: string): PipelineId => pipelineId({ namespace: 'flux-system', name });
const PENDING = ['claimed', 'promoting', 'failing'].map(id);
const BACKLOG = ['bulk-0', 'bulk-1', 'bulk-2'].map(id);

function named(name: string, status?: PipelineStatus): Pipeline {
  const pipeline = samplePipeline(status);
  return { ...pipeline, metadata: { ...pipeline.metadata, name } };
}

const claim: PipelineStatus = {
  environments: {
    staging: {
      promotion: {
        revision: '6.6.0',
        phase: 'Claimed',
        attempt: 1,
        claimedBy: 'gw-a',
        succeeded: false,
        lastAttemptedTime: '2026-11-21T10:00:00Z',
      },
    },
  },
};

const decided = (name: string, outcome: EnvironmentDecision['outcome']): PipelineView => ({
  namespace: 'flux-system',
  name,
  targets: {},
  decisions: [{ environment: 'staging', outcome, reason: outcome, message: '' }],
});

/**
 * The re-check queue over a catalog of: a Claimed record, a Promote decision, a Pipeline whose
 * checks fail while the API is down, an up-to-date one, and a resync backlog whose first check
 * holds the only slot until released.
 */
function world() {
  const scheduler = new FakeScheduler(T0);
  const config = defaultConfig({ management: { name: 'mgmt' } });
  const catalog = new PipelineCatalog(config);
  const pipelines = [
    named('claimed', claim),
    ...['promoting', 'failing', 'idle', ...BACKLOG.map((b) => b.split('/')[1] ?? '')].map((n) =>
      named(n),
    ),
  ];
  // A copy: the catalog takes what it is given as its own (the watch's objects, in production).
  for (const p of pipelines) catalog.upsert(structuredClone(p));
  const views = new Map([
    [id('promoting'), decided('promoting', 'Promote')],
    [id('idle'), decided('idle', 'UpToDate')],
  ]);
  const api = { up: false, failOnce: new Set<PipelineId>() };
  const runs: { id: PipelineId; at: number }[] = [];
  const events: WorkQueueEvent<PipelineId>[] = [];
  const backlogHeld = deferred<ProcessResult>();
  const queue = new PipelineQueue({
    hints: { ...config.hints, retryBaseMs: 1_000, retryMaxMs: 60_000, maxRetries: 20 },
    globalConcurrency: 1,
    scheduler,
    random: () => 0.999,
    observer: (e) => events.push(e),
    loaded: catalog,
    reconciler: {
      reconcile: (p) => {
        runs.push({ id: p, at: scheduler.now() });
        if (p === BACKLOG[0]) return backlogHeld.promise;
        const fails = !api.up || api.failOnce.delete(p);
        return Promise.resolve(fails ? 'retry' : 'done');
      },
    },
  });
  const causes: RecoveryCause[] = [];
  const rechecks = recoveryRechecks(
    { logger: createLogger('silent') },
    {
      reconciler: { pendingPipelines: () => pendingPipelines(catalog.all(), views) },
      pipelines: queue,
    },
  );
  const recover = (cause: RecoveryCause) => {
    causes.push(cause);
    rechecks(cause);
  };
  /** The outage: the failing Pipeline's checks back off for OUTAGE_MS; then the API is back. */
  const outage = async (whileDown: () => void, whenBack: () => void) => {
    queue.requestPipeline(id('failing'), 'hint');
    whileDown();
    await advanceInSteps(scheduler, OUTAGE_MS);
    api.up = true;
    whenBack();
    for (const b of BACKLOG) queue.requestPipeline(b, 'resync');
    return scheduler.now();
  };
  const retriesOf = (p: PipelineId) =>
    events.flatMap((e) => (e.type === 'retry' && e.key === p ? [e] : []));
  const runsSince = (at: number) => runs.filter((r) => r.at >= at);
  return {
    ...{ scheduler, config, catalog, pipelines, queue, api, causes, recover, outage },
    ...{ backlogHeld, retriesOf, runsSince },
  };
}

type World = ReturnType<typeof world>;

/**
 * What both triggers must lead to, from `liftedAt`: within 2 s the Claimed, promoting and
 * failing Pipelines run, ahead of the resync backlog (its first check held the slot), the
 * up-to-date one does not, and a failure right after counts as a first retry again.
 */
async function expectRecheckedAtOnce(w: World, liftedAt: number): Promise<void> {
  const waitedOut = w.retriesOf(id('failing')).at(-1);
  // Without a trigger the failing check would sleep on its grown backoff well past 2 s.
  expect(waitedOut?.retry).toBeGreaterThanOrEqual(4);
  expect(waitedOut?.delayMs).toBeGreaterThan(5_000);
  w.api.failOnce.add(id('failing'));
  await advanceInSteps(w.scheduler, 2_000);
  w.backlogHeld.resolve('done');
  await advanceInSteps(w.scheduler, 100);

  const after = w.runsSince(liftedAt);
  const order = after.map((r) => r.id);
  expect(order[0]).toBe(BACKLOG[0]);
  expect(order.slice(1, 4).sort()).toEqual([...PENDING].sort());
  expect(order.slice(4, 6)).toEqual([BACKLOG[1], BACKLOG[2]]);
  expect(order).not.toContain(id('idle'));
  expect(w.retriesOf(id('failing')).at(-1)?.retry).toBe(1);
  expect(w.runsSince(liftedAt + 2_200).filter((r) => PENDING.includes(r.id))).toEqual([]);
}

describe('recovery after a management API outage', () => {
  it('re-checks the pending Pipelines at once when the Pipeline watch connects again', async () => {
    const w = world();
    const { made, factory } = fakeInformers();
    let started = false;
    const { kubeConfig, calls, pages } = fakeManagement(() => w.pipelines);
    const handler = pipelineEvents({
      ...{ catalog: w.catalog, logger: createLogger('silent'), pipelines: w.queue },
      requireFullRead: () => undefined,
      forget: () => undefined,
      syncClusters: () => Promise.resolve(),
      started: () => started,
      legacyKeys: { track: () => Promise.resolve(), forget: () => undefined },
      resumed: () => {
        w.recover('watch-resumed');
      },
    });
    const watcher = new PipelineWatcher(kubeConfig, [], handler, calls, {
      pages,
      scheduler: w.scheduler,
      informers: factory,
    });
    await watcher.start();
    started = true;
    const informer = made[0];
    if (informer === undefined) throw new Error('no informer');

    const liftedAt = await w.outage(
      () => {
        informer.down = true;
        informer.breakWatch();
      },
      () => {
        informer.down = false;
      },
    );
    expect(w.causes).toEqual([]);
    await expectRecheckedAtOnce(w, liftedAt);
    expect(w.causes).toEqual(['watch-resumed']);
    await watcher.stop();
  });

  it('re-checks the pending Pipelines at once when leader election gets the Lease back', async () => {
    const w = world();
    const view = new FakeLeases().view();
    const resync = new Resync({
      ...{ catalog: new PipelineCatalog(w.config), logger: createLogger('silent') },
      verified: new VerifiedTargets(
        new Verifier({ reader: () => undefined, clusters: () => [], problem: () => undefined }),
        () => w.scheduler.now(),
      ),
      ...{ scheduler: w.scheduler, random: () => 0, intervalMs: 600_000, jitter: 0 },
      refreshCredentials: () => Promise.resolve(),
      pipelines: { requestPipeline: () => 'queued' },
    });
    const leadership = resyncLeadership({
      settings: defaultConfig({ leaderElection: { identity: 'gw-a' } }).leaderElection,
      ...{ store: view, resync, scheduler: w.scheduler, random: () => 0 },
      ...{ logger: createLogger('silent'), gauge: { set: () => undefined } },
      onRecovery: w.recover,
    });
    w.api.up = true;
    leadership.start();
    await advanceInSteps(w.scheduler, 100);
    expect(leadership.isLeader()).toBe(true);
    expect(w.causes).toEqual(['lease-acquired']);
    w.api.up = false;
    w.causes.length = 0;

    const liftedAt = await w.outage(
      () => (view.cutOff = true),
      () => (view.cutOff = false),
    );
    // The outage outlasted the renew deadline (10 s): the replica had stopped leading.
    expect(w.causes).toEqual([]);
    await expectRecheckedAtOnce(w, liftedAt);
    expect(leadership.isLeader()).toBe(true);
    expect(w.causes).toEqual(['lease-answered', 'lease-acquired']);
    await leadership.stop();
  });
});
