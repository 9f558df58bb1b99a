/**
 * The level-triggered loop for one Pipeline: verified state in, decisions computed by the pure
 * evaluator, promotions claimed and run, status written only when it changed. Hints and the
 * resync both end here, so an event can never do what a resync would not. A run returns what
 * the queue should do next (done, retry with backoff, or requeue after a delay), as a Flux
 * reconciler returns RequeueAfter; it never calls back into its queue.
 */
import type { PipelineCatalog } from '../catalog/catalog.js';
import type { CatalogTarget } from '../catalog/targets.js';
import type { CheckBook } from '../checks/check-book.js';
import { nextWakeup } from '../evaluate/evaluate.js';
import type { EnvironmentDecision, Evaluation, TargetStatus } from '../evaluate/decisions.js';
import type { PipelineId } from '../pipeline/id.js';
import type { Pipeline, PromotionResolution } from '../pipeline/pipeline-resource.js';
import { FrozenPool } from '../json/frozen-pool.js';
import { TextPool } from '../text/text.js';
import type { ProcessResult } from '../queue/queue-model.js';
import type { PipelineReconciler } from '../hints/pipeline-queue.js';
import { policyViewsOf } from '../evaluate/policy-view.js';
import { statusesFor, type PipelineEvaluation } from '../evaluation/evaluation-input.js';
import { promoteAll, type PromotionDeps } from './promotions.js';
import { resolveExpiredClaims } from './claim-resolutions.js';
import type { PullRequestRefresher } from '../promote/strategies/pull-request/state-refresher.js';
import type { StatusQueue } from '../status/status-queue.js';
import type { UnrecordedOutcomes } from '../promote/unrecorded-outcomes.js';
import { pendingPipelines } from './pending.js';
import { viewOf, type KeptView, type PipelineView } from './view.js';

/** Distinct decision lists (and policy views) the views share; past it the pool starts afresh. */
const KEPT_POOL_SIZE = 4096;
/** Longer ones (dozens of environments, long gate texts) are each view's own. */
const KEPT_POOL_MAX_JSON = 8192;

/** What the reconciler needs; all of it injected so tests can use fakes. */
export interface ReconcilerDeps extends PromotionDeps {
  /** Told of each claim past its deadline this replica resolved (metrics). */
  onResolved?: (resolution: PromotionResolution) => void;
  catalog: PipelineCatalog;
  /** Reads open pull requests' states again and records changes (pull-request strategy). */
  pullRequests?: Pick<PullRequestRefresher, 'refresh' | 'forget' | 'dueInMs'>;
  /** Outcomes whose write failed, written again before each check of their Pipeline. */
  unrecorded?: Pick<UnrecordedOutcomes, 'has' | 'replay' | 'forget' | 'remember'>;
  /** Writes the verified view to the status, behind the checks (status/status-queue.ts). */
  statusWrites: Pick<StatusQueue, 'request'>;
  /** External checks: their results, and the reads a decision waits for (src/checks). */
  checks?: Pick<CheckBook, 'resultsFor' | 'request'>;
}

/** The reconciler: pipeline re-checks (the pipeline queue's next stage), and the API's views. */
export class Reconciler implements PipelineReconciler {
  private readonly views = new Map<PipelineId, KeptView<CatalogTarget>>();
  private readonly fullReads = new Set<PipelineId>();
  private readonly viewListeners = new Set<(id: PipelineId) => void>();
  /** Decision texts kept in the views: Pipelines at one revision often say the same. */
  private readonly texts = new TextPool();
  private readonly kept = new FrozenPool(KEPT_POOL_SIZE, KEPT_POOL_MAX_JSON);

  constructor(private readonly deps: ReconcilerDeps) {}

  /** Marks a pipeline for a full re-read on its next check (spec change, legacy webhook). */
  requireFullRead(id: PipelineId): void {
    this.fullReads.add(id);
  }

  /**
   * Re-checks one pipeline. 'retry' while some target is Unknown (so it backs off and
   * re-reads) or a claim conflicted; a requeue when a decision names a time to look again.
   */
  async reconcile(id: PipelineId): Promise<ProcessResult> {
    const { catalog, verified } = this.deps;
    const held = catalog.get(id);
    if (held === undefined) {
      this.forget(id);
      return 'done';
    }
    // An outcome lost to an outage is written first: the strategy already ran, once.
    if (this.deps.unrecorded?.has(id) === true) await this.deps.unrecorded.replay(id, held);
    const targets = catalog.targetsOf(id);
    await verified.readAll(this.dueForRead(id, targets));
    // A claim past its deadline is concluded before anything is decided on it.
    const pipeline = await resolveExpiredClaims(this.deps, held, targets);
    const evaluation = this.evaluate(pipeline, this.statusesOf(pipeline, targets));
    this.logDecisions(id, evaluation);
    const promoted = await promoteAll(this.deps, pipeline, targets, evaluation);
    this.remember(id, pipeline, targets, promoted.evaluation);
    // A check the decision waits for is read in the background; its result re-checks us.
    this.deps.checks?.request(promoted.pipeline ?? pipeline, promoted.evaluation);
    const latest = promoted.pipeline ?? pipeline;
    const refreshed = (await this.deps.pullRequests?.refresh(latest)) ?? latest;
    // Only the id waits for its write (and an object the catalog may not hold yet): the view
    // is computed when the write starts.
    await this.deps.statusWrites.request(id, refreshed === held ? undefined : refreshed);
    const unknown = targets.some((t) => verified.status(t)?.health === 'Unknown');
    if (unknown || promoted.retry || this.deps.unrecorded?.has(id) === true) return 'retry';
    const wakeAt = nextWakeup(promoted.evaluation);
    const waits = [
      wakeAt === undefined ? undefined : Math.max(0, wakeAt - this.deps.now()),
      this.deps.pullRequests?.dueInMs(id),
    ].filter((ms) => ms !== undefined);
    return waits.length === 0 ? 'done' : { requeueAfterMs: Math.min(...waits) };
  }

  /**
   * Drops what was kept for a Pipeline no longer loaded (deleted, or relabelled out of this
   * shard): its view, and the pull request and unrecorded outcome it was waiting on.
   */
  forget(id: PipelineId): void {
    if (this.views.delete(id)) this.viewChanged(id);
    this.deps.pullRequests?.forget(id);
    this.deps.unrecorded?.forget(id);
  }

  /** Every loaded Pipeline's current decisions, in no order: for scrape-time counts. */
  *decisions(): Generator<readonly EnvironmentDecision[], void, undefined> {
    for (const kept of this.views.values()) yield kept.decisions;
  }

  /** How many Pipelines have been evaluated at least once (and are still loaded). */
  get evaluated(): number {
    return this.views.size;
  }

  /** The latest verified state and decisions of a pipeline, for GET /v1/pipelines. */
  view(id: PipelineId): PipelineView | undefined {
    const kept = this.views.get(id);
    return kept === undefined ? undefined : viewOf(id, kept, (t) => this.deps.verified.status(t));
  }

  /**
   * Calls `listener` with a Pipeline's id each time its view is replaced (every check) or
   * dropped; returns the unsubscribe. For the web view's live updates: quick, never throwing.
   */
  onView(listener: (id: PipelineId) => void): () => void {
    this.viewListeners.add(listener);
    return () => {
      this.viewListeners.delete(listener);
    };
  }

  private viewChanged(id: PipelineId): void {
    for (const listener of this.viewListeners) listener(id);
  }

  /**
   * Pipelines a check may move on now: a Claimed record, or a latest evaluation that promotes or
   * waits. What to re-check at once when the management API answers again after failing.
   */
  pendingPipelines(): PipelineId[] {
    return pendingPipelines(this.deps.catalog.all(), this.views);
  }

  private evaluate(
    pipeline: Pipeline,
    targets: Record<string, TargetStatus[]>,
  ): PipelineEvaluation {
    return this.deps.evaluator.evaluate(pipeline, targets);
  }

  private statusesOf(
    pipeline: Pipeline,
    targets: readonly CatalogTarget[],
  ): Record<string, TargetStatus[]> {
    return statusesFor(this.deps.verified, pipeline, targets);
  }

  /** Every target after a spec change or legacy call; else those never read or last Unknown. */
  private dueForRead(id: PipelineId, targets: readonly CatalogTarget[]): CatalogTarget[] {
    if (this.fullReads.delete(id)) return [...targets];
    return targets.filter((t) => {
      const status = this.deps.verified.status(t);
      return status === undefined || status.health === 'Unknown';
    });
  }

  private remember(
    id: PipelineId,
    pipeline: Pipeline,
    targets: readonly CatalogTarget[],
    evaluation: PipelineEvaluation,
  ): void {
    // A check that was in flight when the Pipeline went leaves nothing behind.
    if (!this.deps.catalog.has(id)) return;
    // Explained from the input the decisions were made on: the two cannot disagree.
    const policy = policyViewsOf(evaluation.input);
    this.views.set(id, {
      // Names only, the catalog's shared list, not this check's spec.
      environments:
        this.deps.catalog.environments(id) ?? pipeline.spec.environments.map((env) => env.name),
      targets,
      // Kept until the next check of every Pipeline: flat strings, not the trees they were built
      // as, one string per distinct text, and one frozen list per distinct list of decisions
      // (most Pipelines of a fleet decide alike: about 40 bytes per target less).
      decisions: this.kept.one(
        evaluation.decisions.map((d) => ({ ...d, message: this.texts.one(d.message) })),
      ),
      policy: this.kept.one(policy),
      evaluatedAt: this.deps.now(),
    });
    this.viewChanged(id);
  }

  /** One info line when a pipeline's decisions change (not on every re-check). */
  private logDecisions(id: PipelineId, evaluation: Evaluation): void {
    const previous = this.views.get(id)?.decisions;
    const unchanged =
      previous?.length === evaluation.decisions.length &&
      previous.every((d, i) => {
        const next = evaluation.decisions[i];
        return (
          d.outcome === next?.outcome && d.revision === next.revision && d.reason === next.reason
        );
      });
    if (unchanged) return;
    const summary = Object.fromEntries(
      evaluation.decisions.map((d) => [
        d.environment,
        `${d.outcome}${d.revision === undefined ? '' : ` ${d.revision}`} (${d.reason})`,
      ]),
    );
    this.deps.logger.info({ pipeline: id, decisions: summary }, 'pipeline evaluated');
  }
}
