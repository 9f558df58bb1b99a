/**
 * The reconcile stage on fakes, for unit tests: a real catalog, verifier, reconciler and
 * promotion code over FakeClusters and a FakePipelineWriter, on a hand-set clock.
 */
import { PipelineCatalog } from '../../src/catalog/catalog.js';
import { defaultConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log.js';
import { pipelineIdOf, type PipelineId } from '../../src/pipeline/id.js';
import type { Pipeline, PromotionRecord } from '../../src/pipeline/pipeline-resource.js';
import { strategyFor } from '../../src/promote/strategies/select.js';
import { UnrecordedOutcomes } from '../../src/promote/unrecorded-outcomes.js';
import { Reconciler } from '../../src/reconcile/reconciler.js';
import { VerifiedTargets } from '../../src/verify/verified-targets.js';
import { Verifier } from '../../src/verify/verifier.js';
import { FakeClusters } from './fake-clusters.js';
import { PipelineEvaluator } from '../../src/evaluation/pipeline-evaluator.js';
import type { TargetPlace } from '../../src/status/view-change.js';
import { ViewSync } from '../../src/status/view-sync.js';
import { ViewInputsReader } from '../../src/evaluation/view-inputs.js';
import { FakePipelineWriter, statusWriterOver } from './fake-pipeline-writer.js';

/** The management cluster's name in the rig; every target lives on it. */
export const MGMT = 'mgmt';
export const ENVS = ['dev', 'staging', 'prod'] as const;

/** Pipeline apps/app: dev -> staging -> prod, one target each in namespace = env name. */
export function rigPipeline(): Pipeline {
  return {
    apiVersion: 'pipelines.weave.works/v1alpha1',
    kind: 'Pipeline',
    metadata: { name: 'app', namespace: 'apps', generation: 1 },
    spec: {
      appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'app' },
      promotion: { strategy: { notification: {} } },
      environments: ENVS.map((name) => ({ name, targets: [{ namespace: name }] })),
    },
  };
}

/** A reconciler over fakes, with everything a test needs to drive and inspect it. */
export function reconcileRig(versions: Record<(typeof ENVS)[number], string>) {
  const config = defaultConfig({ management: { name: MGMT } });
  const clusters = new FakeClusters();
  for (const env of ENVS) clusters.cluster(MGMT).release(env, 'app', versions[env]);
  const clock = { now: Date.UTC(2026, 10, 24, 10, 0, 0) };
  const now = () => clock.now;
  const writer = new FakePipelineWriter();
  const catalog = new PipelineCatalog(config);
  const stored = writer.put(rigPipeline());
  catalog.upsert(stored);
  const verified = new VerifiedTargets(new Verifier(clusters), now);
  const outcomes: string[] = [];
  const leadTimes: number[] = [];
  const promotedIn: string[] = [];
  const status = statusWriterOver(writer);
  const policy = {
    maxAttempts: 3,
    backoffBaseMs: 10_000,
    backoffMaxMs: 60_000,
    claimTimeoutMs: 60_000,
  };
  const logger = createLogger('silent');
  /** Targets the view sync asked to read again (a stored record was newer than ours). */
  const rereads: TargetPlace[][] = [];
  const evaluator = new PipelineEvaluator({ policy, floors: {} }, now);
  const viewInputs = new ViewInputsReader({ catalog, verified, evaluator });
  const rereading = {
    reread: (_id: PipelineId, places: readonly TargetPlace[]) => {
      rereads.push([...places]);
    },
  };
  const views = new ViewSync({ status, logger, now, evaluator, rereads: rereading }, viewInputs);
  const reconciler = new Reconciler({
    catalog,
    verified,
    status,
    statusWrites: {
      // As the gateway's status queue does, without the queue: the view of the latest reads.
      request: (id, newer): Promise<void> => views.write(id, newer),
    },
    unrecorded: new UnrecordedOutcomes(status),
    policy,
    evaluator,
    instanceId: 'test',
    logger,
    now,
    freshnessMs: 2_000,
    strategyFor: (pipeline, env) =>
      strategyFor(pipeline.spec, env, {
        ...{ writer, webhooks: config.promotion.webhooks, now },
        callTimeoutMs: 10_000,
      }),
    onOutcome: (outcome) => outcomes.push(outcome),
    onLeadTime: (seconds) => leadTimes.push(seconds),
    onPromoted: (environment) => promotedIn.push(environment),
  });
  const id: PipelineId = pipelineIdOf(stored);
  return {
    id,
    clock,
    clusters,
    writer,
    catalog,
    verified,
    reconciler,
    viewInputs,
    outcomes,
    /** The lead times (seconds) the reconciler reported, one per successful promotion. */
    leadTimes,
    promotedIn,
    rereads,
    /** The stored promotion record of `env`. */
    record: (env: string): PromotionRecord | undefined =>
      writer.peek('apps', 'app')?.status?.environments?.[env]?.promotion,
  };
}
