/** The promotion loop, wired: hints -> verify -> evaluate -> promote -> status. */
import type { PipelineCatalog } from '../catalog/catalog.js';
import { HintQueue } from '../hints/hint-queue.js';
import { PipelineQueue } from '../hints/pipeline-queue.js';
import { secretKeyReader } from '../kube/secret-reader.js';
import {
  pullRequestPorts,
  pullRequestState,
} from '../promote/strategies/pull-request/pull-request-ports.js';
import { UnrecordedOutcomes } from '../promote/unrecorded-outcomes.js';
import { announces } from '../verify/announcements.js';
import { HintedReader } from '../verify/hinted-read.js';
import { PullRequestRefresher } from '../promote/strategies/pull-request/state-refresher.js';
import { Reconciler } from '../reconcile/reconciler.js';
import { reconcileMetrics } from '../reconcile/reconcile-metrics.js';
import { ConfirmationRounds } from '../reconcile/confirmation-round.js';
import { PipelineEvaluator } from '../evaluation/pipeline-evaluator.js';
import type { EvaluationSettings } from '../evaluation/evaluation-input.js';
import { readHistories } from '../evaluation/soak-input.js';
import { StatusQueue } from '../status/status-queue.js';
import { StaleTargetHints } from '../status/stale-reads.js';
import { ViewSync } from '../status/view-sync.js';
import { ViewInputsReader } from '../evaluation/view-inputs.js';
import type { HintSink } from '../hints/sinks.js';
import type { ClusterAccess } from './cluster-access.js';
import { checkBook } from './check-runs.js';
import { queueFailures } from './queue-failures.js';
import type { Runtime } from './runtime.js';
import { strategyDoors, waitPreviews } from './previews.js';
import type { PipelineId } from '../pipeline/id.js';
import type { TrainGateSource } from '../evaluation/train-gates.js';
import type { Pipeline } from '../pipeline/pipeline-resource.js';

/** A read younger than this is current enough to confirm a promotion without re-reading. */
export const FRESHNESS_MS = 2_000;
/**
 * Reads of one object for hints start at least this far apart: a lone event is read at once,
 * and a burst of identical events (which a server takes longer to receive than one read takes)
 * costs at most two reads, the second covering every event received before it started.
 */
export const HINT_READ_SPACING_MS = 1_000;

/** The cluster access the loop reads and writes through, and the trains' gates if any. */
export type LoopAccess = ClusterAccess & {
  trains?: TrainGateSource;
  trainsCurrent?: (pipeline: Pipeline) => Promise<void>;
};

/** hints -> verify -> evaluate -> promote -> status: the three queues and the reconciler. */
export function promotionLoop(rt: Runtime, catalog: PipelineCatalog, access: LoopAccess) {
  const { config, logger, now, metrics, scheduler, random } = rt;
  const { verified, status, trains, trainsCurrent } = access;
  const { retry: policy, instanceId } = config.promotion;
  const settings = config.promotion.pullRequest;
  const readSecret = secretKeyReader(rt.management, rt.calls);
  const pullRequest = pullRequestPorts({ settings, readSecret, now, fetch: rt.fetch });
  // Asked for decisions only once the loop runs, by when the reconciler is built.
  const decisions = (id: PipelineId) => reconciler.view(id)?.decisions;
  const { strategies, previews } = strategyDoors(rt, catalog, access, pullRequest, decisions);
  // Two edges go back up the path, to queues built below: a check's result re-checks its
  // Pipeline, and a stored record newer than our read is a hint about that object again.
  const checks = checkBook(rt, readSecret, (id) => pipelines.requestPipeline(id, 'check-result'));
  const common = { hints: config.hints, scheduler, random };
  const history = readHistories(verified, catalog);
  // Every outcome counts once, whether written at once or replayed after a failed write.
  const countOutcome = (outcome: string): void => {
    metrics.promotions.inc({ outcome });
  };
  // Decisions are counted at scrape time, by when the reconciler is built.
  const reconcileCounts = reconcileMetrics(metrics.registry, () => reconciler.decisions());
  // One evaluation for the checks, the confirmation rounds, the status view and the approvals.
  const evaluator = loopEvaluator(rt, { checks, history, previews, trains });
  const staleHints: HintSink = { offer: (key, source) => hints.offer(key, source) };
  const views = new ViewSync(
    {
      ...{ status, logger, now, evaluator, rereads: new StaleTargetHints(catalog, staleHints) },
      previews: waitPreviews(rt, previews),
    },
    new ViewInputsReader({ catalog, verified, evaluator }),
  );
  const statusWrites = new StatusQueue({
    ...common,
    observer: queueFailures(logger, 'status write failed', 'pipeline'),
    writer: views,
  });
  // The promotions a pass finds due are confirmed together: one read per scope at any pace.
  const confirmations = new ConfirmationRounds({
    ...{ evaluator, catalog, verified, now },
    ...{ freshnessMs: FRESHNESS_MS, lifetimeMs: config.resync.intervalMs },
  });
  const reconciler = new Reconciler({
    ...{ catalog, verified, status, policy, evaluator, instanceId, logger, now },
    freshnessMs: FRESHNESS_MS,
    strategyFor: strategies,
    previews,
    pullRequests: new PullRequestRefresher({
      ...{ status, logger, now, intervalMs: settings.refreshIntervalMs },
      state: pullRequestState(pullRequest),
    }),
    statusWrites,
    checks,
    unrecorded: new UnrecordedOutcomes(status, countOutcome),
    confirmations,
    onOutcome: countOutcome,
    onLeadTime: reconcileCounts.observeLeadTime,
    onPromoted: reconcileCounts.countPromoted,
    onShadowHolds: (holds) => {
      for (const { gate, name } of holds) metrics.shadowHolds.inc({ gate, name });
    },
    // A claim this replica resolved counts as its attempt's outcome: Observed or Abandoned.
    onResolved: countOutcome,
    onUnkeptClaim: () => void access.crd.recheck(),
    ...(trainsCurrent === undefined ? {} : { trainsCurrent }),
  });
  const pipelines = new PipelineQueue({
    ...common,
    observer: queueFailures(logger, 'pipeline check failed', 'pipeline'),
    loaded: catalog,
    reconciler,
  });
  const hints = new HintQueue({
    ...common,
    index: catalog,
    reads: new HintedReader({ catalog, verified, pipelines, logger }),
    minReadIntervalMs: HINT_READ_SPACING_MS,
    observer: queueFailures(logger, 'hinted read failed', 'object'),
    onOffer: (key, source, result) => {
      metrics.hints.inc({ source, result });
      // An accepted event announces its object: the resync will not count its change missing.
      if (announces(source, result)) verified.noteEvent(key);
    },
  });
  return { reconciler, pipelines, hints, statusWrites, confirmations, evaluator, previews };
}

/** What promotionLoop builds. */
export type PromotionLoop = ReturnType<typeof promotionLoop>;

/** The loop's one evaluator: the configuration's policy, with this replica's reads and results. */
function loopEvaluator(
  rt: Runtime,
  reads: Pick<EvaluationSettings, 'checks' | 'history' | 'previews' | 'trains'>,
): PipelineEvaluator {
  const { retry: policy, windows } = rt.config.promotion;
  const { floors, breakGlass, approvers } = rt.config.authorizations;
  const names = approvers.map((a) => a.name);
  return new PipelineEvaluator(
    { policy, floors, windows, breakGlass, approvers: names, ...reads },
    rt.now,
  );
}
