/**
 * The level-triggered loop for one Pipeline: verified state in, decisions computed by the pure
 * evaluator, promotions claimed and run, status written only when it changed. Hints and the
 * resync both end here, so an event can never do what a resync would not.
 */
import { nextWakeup } from '../evaluate/evaluate.js';
import type { Evaluation, RetryPolicy, TargetStatus } from '../evaluate/types.js';
import { hintKeyString, type HintKey } from '../hints/types.js';
import type { ProcessResult } from '../hints/work-queue-types.js';
import type { IndexedTarget, PipelineIndex } from '../index/pipeline-index.js';
import type { PipelineView } from '../ingress/pipelines.js';
import type { GatewayLogger } from '../log.js';
import type { PipelineWriter } from '../kube/types.js';
import type { Pipeline } from '../pipeline/types.js';
import { rfc3339 } from '../status/pipeline-object.js';
import type { TargetStore } from '../verify/target-store.js';
import type { Verifier } from '../verify/verifier.js';
import { evaluatePipeline, statusesFor } from './inputs.js';
import { promoteAll, type PromotionDeps } from './promotions.js';
import { syncStatus } from './status-sync.js';

/** What the reconciler needs; all of it injected so tests can use fakes. */
export interface ReconcilerDeps extends PromotionDeps {
  index: PipelineIndex;
  verifier: Verifier;
  store: TargetStore;
  writer: PipelineWriter;
  policy: RetryPolicy;
  logger: GatewayLogger;
  now: () => number;
  /** A read younger than this counts as current when confirming a promotion. */
  freshnessMs: number;
  /** Asks for a re-check of a pipeline after `delayMs` (retry backoff, claim expiry). */
  schedule: (pipelineId: string, delayMs: number) => void;
  /** Asks for a re-check of pipelines now (after an object read). */
  request: (pipelineId: string) => void;
}

/** How much to re-read before evaluating. */
export type ReadMode = 'missing' | 'all';

/** The reconciler: hint processing, pipeline re-checks, and the read side for the API. */
export class Reconciler {
  private readonly views = new Map<string, PipelineView>();
  private readonly fullReads = new Set<string>();

  constructor(private readonly deps: ReconcilerDeps) {}

  /**
   * Hint processor: one read of the object, stored for every Pipeline that references it,
   * then a re-check of those Pipelines. 'retry' when the read failed, for backoff.
   */
  async onHint(key: HintKey): Promise<ProcessResult> {
    const { index, verifier, store, now } = this.deps;
    const ids = index.pipelinesFor(key);
    const wanted = hintKeyString(key);
    const target = ids
      .flatMap((id) => index.targetsOf(id))
      .find((t) => hintKeyString(t.key) === wanted);
    if (target === undefined) return 'done';
    const status = await verifier.readOne(key, target.ref);
    store.set(key, status, now());
    // The one info line of the event path: per verified read, not per event, so a burst of
    // identical events logs once (the events route logs each event at debug only).
    this.deps.logger.info(
      {
        cluster: key.cluster,
        kind: key.kind,
        namespace: key.namespace,
        name: key.name,
        health: status.health,
        reason: status.reason,
        revision: status.revision,
        pipelines: ids.length,
      },
      'hinted object verified',
    );
    for (const id of ids) this.deps.request(id);
    return status.health === 'Unknown' ? 'retry' : 'done';
  }

  /** Marks a pipeline for a full re-read on its next check (legacy webhook, approvals). */
  requireFullRead(pipelineId: string): void {
    this.fullReads.add(pipelineId);
  }

  /** Re-checks one pipeline. 'retry' while some target is Unknown, so it backs off and re-reads. */
  async reconcile(pipelineId: string): Promise<ProcessResult> {
    const { index, logger } = this.deps;
    const pipeline = index.getById(pipelineId);
    if (pipeline === undefined) {
      this.views.delete(pipelineId);
      return 'done';
    }
    const mode: ReadMode = this.fullReads.delete(pipelineId) ? 'all' : 'missing';
    const targets = index.targetsOf(pipelineId);
    await this.readTargets(targets, mode);
    const statuses = this.statusesOf(pipeline, targets);
    const evaluation = this.evaluate(pipeline, statuses);
    this.logDecisions(pipelineId, evaluation);
    const promoted = await promoteAll(this.deps, pipeline, targets, evaluation);
    const final = promoted.evaluation;
    const finalStatuses = this.statusesOf(pipeline, targets);
    this.remember(pipelineId, pipeline, finalStatuses, final);
    await syncStatus(this.deps, promoted.pipeline ?? pipeline, finalStatuses, final);
    this.scheduleWakeup(pipelineId, final);
    const unknown = targets.some((t) => this.deps.store.get(t.key)?.status.health === 'Unknown');
    if (promoted.conflicts > 0)
      logger.debug({ pipeline: pipelineId }, 'promotion claimed elsewhere');
    return unknown || promoted.retry ? 'retry' : 'done';
  }

  /** The latest verified state and decisions of a pipeline, for GET /v1/pipelines. */
  view(namespace: string, name: string): PipelineView | undefined {
    return this.views.get(`${namespace}/${name}`);
  }

  /** Evaluates `pipeline` against the given statuses at the current time. */
  evaluate(pipeline: Pipeline, targets: Record<string, TargetStatus[]>): Evaluation {
    return evaluatePipeline(pipeline, targets, this.deps.policy, this.deps.now());
  }

  /** Stored statuses per environment, aligned with the spec's targets; unread = Unknown. */
  statusesOf(
    pipeline: Pipeline,
    targets: readonly IndexedTarget[],
  ): Record<string, TargetStatus[]> {
    return statusesFor(this.deps.store, pipeline, targets);
  }

  /** Reads targets never read or last seen Unknown ('missing'), or every target ('all'). */
  private async readTargets(targets: readonly IndexedTarget[], mode: ReadMode): Promise<void> {
    const { store, verifier, now } = this.deps;
    const seen = new Set<string>();
    const due = targets.filter((t) => {
      const id = hintKeyString(t.key);
      if (seen.has(id)) return false;
      seen.add(id);
      const stored = store.get(t.key);
      return mode === 'all' || stored === undefined || stored.status.health === 'Unknown';
    });
    await Promise.all(
      due.map(async (t) => {
        store.set(t.key, await verifier.readOne(t.key, t.ref), now());
      }),
    );
  }

  private remember(
    id: string,
    pipeline: Pipeline,
    targets: Record<string, TargetStatus[]>,
    evaluation: Evaluation,
  ): void {
    this.views.set(id, {
      namespace: pipeline.metadata.namespace,
      name: pipeline.metadata.name,
      targets,
      decisions: evaluation.decisions,
      evaluatedAt: rfc3339(this.deps.now()),
    });
  }

  /** One info line when a pipeline's decisions change (not on every re-check). */
  private logDecisions(id: string, evaluation: Evaluation): void {
    const summary = Object.fromEntries(
      evaluation.decisions.map((d) => [
        d.environment,
        `${d.outcome}${d.revision === undefined ? '' : ` ${d.revision}`} (${d.reason})`,
      ]),
    );
    const previous = this.views.get(id)?.decisions;
    const unchanged =
      previous?.length === evaluation.decisions.length &&
      previous.every((d, i) => {
        const next = evaluation.decisions[i];
        return (
          d.outcome === next?.outcome && d.revision === next.revision && d.reason === next.reason
        );
      });
    if (!unchanged)
      this.deps.logger.info({ pipeline: id, decisions: summary }, 'pipeline evaluated');
  }

  private scheduleWakeup(id: string, evaluation: Evaluation): void {
    const at = nextWakeup(evaluation);
    if (at !== undefined) this.deps.schedule(id, Math.max(0, at - this.deps.now()));
  }
}
