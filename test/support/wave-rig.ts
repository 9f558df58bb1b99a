/**
 * A promotion wave on fakes, for counting reads per promotion at any pace: N Pipelines
 * dev -> staging -> prod (dev on the management cluster, staging and prod on `eu`), one
 * namespace per environment or one per application and environment; a real catalog, verified
 * state, resync pass, confirmation round and reconciler over FakeClusters whose reads take a
 * random number of event-loop turns and move the hand clock, checks run k at once in whatever
 * order those reads leave them, each moving the clock as a slow machine would.
 */
import { PipelineCatalog } from '../../src/catalog/catalog.js';
import { defaultConfig } from '../../src/config/load.js';
import type { ClusterDirectory, ObjectReader } from '../../src/kube/ports.js';
import { createLogger } from '../../src/log.js';
import { pipelineId, type PipelineId } from '../../src/pipeline/id.js';
import type { Pipeline } from '../../src/pipeline/pipeline-resource.js';
import { strategyFor } from '../../src/promote/strategies/select.js';
import { ConfirmationRounds } from '../../src/reconcile/confirmation-round.js';
import { PipelineEvaluator } from '../../src/evaluation/pipeline-evaluator.js';
import { Reconciler } from '../../src/reconcile/reconciler.js';
import { Resync } from '../../src/resync/resync.js';
import { ViewSync } from '../../src/status/view-sync.js';
import { ViewInputsReader } from '../../src/evaluation/view-inputs.js';
import { VerifiedTargets } from '../../src/verify/verified-targets.js';
import { Verifier } from '../../src/verify/verifier.js';
import { FakeClusters } from './fake-clusters.js';
import { FakePipelineWriter, statusWriterOver } from './fake-pipeline-writer.js';
import { FakeScheduler, flush } from './fake-scheduler.js';

/** One namespace per environment, or one per application and environment (cluster-wide LISTs). */
export type WaveLayout = 'env' | 'app';

/** How slow the machine and the API servers are. */
export interface Pace {
  /** Clock time each check takes before it runs (a busy machine). */
  checkMs: number;
  /** Clock time each read takes (a slow API server), and up to this many turns of delay. */
  readMs: number;
  maxTurns: number;
  /** Checks running at once. */
  concurrency: number;
}

const ENVS = [
  { name: 'dev', cluster: undefined },
  { name: 'staging', cluster: 'eu' },
  { name: 'prod', cluster: 'eu' },
] as const;
const POLICY = { maxAttempts: 3, backoffBaseMs: 10_000, backoffMaxMs: 60_000 };

function pipeline(app: string, layout: WaveLayout): Pipeline {
  return {
    apiVersion: 'pipelines.weave.works/v1alpha1',
    kind: 'Pipeline',
    metadata: { name: app, namespace: 'apps', generation: 1 },
    spec: {
      appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: app },
      promotion: { strategy: { notification: {} } },
      environments: ENVS.map(({ name, cluster }) => {
        const namespace = layout === 'env' ? name : `${app}-${name}`;
        return {
          name,
          targets: [
            cluster === undefined
              ? { namespace }
              : { namespace, clusterRef: { kind: 'GitopsCluster' as const, name: cluster } },
          ],
        };
      }),
    },
  };
}

/** A deterministic random source (mulberry32), so an interleaving can be replayed. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** `clusters` behind readers that wait a random number of turns and move the clock. */
function slowed(clusters: FakeClusters, pace: () => Pace, clock: FakeScheduler, seed: number) {
  const random = seeded(seed);
  const wait = async () => {
    const turns = Math.floor(random() * (pace().maxTurns + 1));
    for (let i = 0; i < turns; i++) await flush();
    clock.advance(pace().readMs);
  };
  const directory: ClusterDirectory = {
    reader: (name) => {
      const inner = clusters.reader(name);
      if (inner === undefined) return undefined;
      const reader: ObjectReader = {
        get: async (ref) => (await wait(), inner.get(ref)),
        list: async (apiVersion, kind, namespace, visit) => (
          await wait(),
          inner.list(apiVersion, kind, namespace, visit)
        ),
      };
      return reader;
    },
    clusters: () => clusters.clusters(),
    problem: (name) => clusters.problem(name),
  };
  return { directory, random };
}

/** What a test may do between a pass's LISTs and its round, and before the checks. */
export interface WaveHooks {
  beforeRound?: () => void;
  beforeChecks?: () => Promise<void>;
}

/** The rig; `confirmRounds: false` wires the gateway as it was (each check confirms alone). */
export function waveRig(apps: number, layout: WaveLayout, confirmRounds = true, seed = 1) {
  const config = defaultConfig({
    management: { name: 'mgmt' },
    clusters: [{ name: 'eu', gitopsCluster: { namespace: 'apps', name: 'eu' } }],
  });
  const clock = new FakeScheduler(Date.UTC(2026, 10, 26, 9));
  const now = () => clock.now();
  const clusters = new FakeClusters();
  let pace: Pace = { checkMs: 0, readMs: 0, maxTurns: 0, concurrency: 1 };
  const { directory, random } = slowed(clusters, () => pace, clock, seed);
  const catalog = new PipelineCatalog(config);
  const writer = new FakePipelineWriter();
  const names = Array.from({ length: apps }, (_, i) => `app-${String(i)}`);
  for (const app of names) {
    for (const env of ENVS) {
      const ns = layout === 'env' ? env.name : `${app}-${env.name}`;
      clusters.cluster(env.cluster ?? 'mgmt').release(ns, app, '1.0.0');
    }
    catalog.upsert(writer.put(pipeline(app, layout)));
  }
  const verified = new VerifiedTargets(new Verifier(directory), now);
  const logger = createLogger('silent');
  const status = statusWriterOver(writer);
  const policy = { ...POLICY, claimTimeoutMs: 600_000 };
  const evaluator = new PipelineEvaluator({ policy, floors: {} }, now);
  const confirmations = new ConfirmationRounds({
    ...{ evaluator, catalog, verified, now },
    ...{ freshnessMs: 2_000, lifetimeMs: 300_000 },
  });
  const outcomes: string[] = [];
  const views = new ViewSync(
    { status, logger, now, evaluator, rereads: { reread: () => undefined } },
    new ViewInputsReader({ catalog, verified, evaluator }),
  );
  const reconciler = new Reconciler({
    ...{ policy, evaluator, catalog, verified, status, logger, now, instanceId: 'test' },
    freshnessMs: 2_000,
    statusWrites: { request: (id, newer): Promise<void> => views.write(id, newer) },
    strategyFor: (p, env) =>
      strategyFor(p.spec, env, {
        ...{ writer, webhooks: config.promotion.webhooks, now },
        callTimeoutMs: 10_000,
      }),
    onOutcome: (outcome) => outcomes.push(outcome),
    ...(confirmRounds ? { confirmations } : {}),
  });
  const requested: PipelineId[] = [];
  /** Clock time between the pass's LISTs and what follows them (a long pass at scale). */
  let gapMs = 0;
  /** Reads when the pass's own LISTs were done (the wave's reads are counted from there). */
  let afterPassReads = { gets: 0, lists: 0 };
  let roundHook: (() => void) | undefined;
  const resync = new Resync({
    ...{ catalog, verified, logger, scheduler: clock, random, intervalMs: 300_000, jitter: 0 },
    refreshCredentials: () => Promise.resolve(),
    pipelines: {
      requestPipeline: (id) => {
        requested.push(id);
        return 'queued';
      },
    },
    ...(confirmRounds
      ? {
          confirm: (ids: readonly PipelineId[]) => {
            clock.advance(gapMs);
            afterPassReads = clusters.reads();
            roundHook?.();
            return confirmations.confirm(ids);
          },
        }
      : {}),
  });

  /** Runs the requested checks `pace.concurrency` at once, each moving the clock first. */
  async function drain(): Promise<void> {
    const worker = async () => {
      for (let id = requested.shift(); id !== undefined; id = requested.shift()) {
        clock.advance(pace.checkMs);
        await reconciler.reconcile(id);
      }
    };
    await Promise.all(Array.from({ length: pace.concurrency }, worker));
  }

  return {
    clock,
    clusters,
    writer,
    catalog,
    verified,
    confirmations,
    reconciler,
    outcomes,
    ids: () => catalog.ids(),
    idOf: (app: string) => pipelineId({ namespace: 'apps', name: app }),
    setPace: (next: Pace) => {
      pace = next;
    },
    /** Rolls dev of the first `count` applications out to `version` (no event: a lost one). */
    roll(count: number, version: string): void {
      for (const app of names.slice(0, count)) {
        const ns = layout === 'env' ? 'dev' : `${app}-dev`;
        clusters.cluster('mgmt').release(ns, app, version);
      }
    },
    /** One pass, `gap` ms of clock passing after its LISTs; `beforeRound` runs then. */
    async pass(gap: number, beforeRound?: () => void): Promise<void> {
      gapMs = gap;
      roundHook = beforeRound;
      await resync.runOnce();
      if (!confirmRounds) {
        clock.advance(gapMs);
        afterPassReads = clusters.reads();
      }
    },
    /**
     * One pass (as pass()) and every check it requested; the reads made from the pass's LISTs'
     * end (the wave's), and the promotions made.
     */
    async wave(gap: number, hooks: WaveHooks = {}) {
      await this.pass(gap, hooks.beforeRound);
      await hooks.beforeChecks?.();
      const promotedBefore = outcomes.filter((o) => o === 'Promoted').length;
      await drain();
      const after = clusters.reads();
      return {
        gets: after.gets - afterPassReads.gets,
        lists: after.lists - afterPassReads.lists,
        promoted: outcomes.filter((o) => o === 'Promoted').length - promotedBefore,
      };
    },
    /** The stored promotion record of an application's environment. */
    record: (app: string, env: string) =>
      writer.peek('apps', app)?.status?.environments?.[env]?.promotion,
  };
}
