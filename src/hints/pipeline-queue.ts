/**
 * Whole-pipeline re-checks: what a hinted read, the resync, a legacy webhook call or a spec
 * change asks for. A run may ask to be run again later by returning `{ requeueAfterMs }`.
 */
import type { PipelineId } from '../pipeline/id.js';
import { QueueFront } from '../queue/front.js';
import { WorkQueue } from '../queue/work-queue.js';
import type { OfferResult, ProcessResult } from '../queue/queue-model.js';
import { commonOptions, doneNow, type QueueCommon } from './hint-queue.js';
import type { PipelineTrigger, RecheckResult, RecheckSource } from './sinks.js';

/** Which Pipelines are loaded: a re-check of any other is not queued. */
export interface LoadedPipelines {
  /** Whether the Pipeline is loaded (PipelineCatalog). */
  has(id: PipelineId): boolean;
}

/** The stage after the pipeline queue: one whole check of a Pipeline (reconcile/reconciler.ts). */
export interface PipelineReconciler {
  /** Checks the Pipeline once; the result says what the queue does next (retry, requeue). */
  reconcile(id: PipelineId): Promise<ProcessResult>;
}

/** Options of PipelineQueue. */
export interface PipelineQueueOptions extends QueueCommon<PipelineId> {
  /** The loaded Pipelines (PipelineCatalog). */
  loaded: LoadedPipelines;
  /** Re-checks one whole Pipeline. */
  reconciler: PipelineReconciler;
  /** Called for every request with its result, for metrics and logs. */
  onRequest?: (id: PipelineId, source: RecheckSource, result: RecheckResult) => void;
}

/**
 * Re-checks (and so promotions) at once. Why this many: a wave's duration at a slow API server.
 * Its reads no longer depend on it (a pass confirms the promotions it finds due by scope), but
 * each re-check waits on a few management API calls: at 10,000 x 50 with every API server 100 ms
 * slower per request, a wave of 8,000 took 110-111 s with 32 at once and 219 s with 16 (the next
 * pass comes after 300 s); at normal pace 16 used less memory (peak 237-247 MiB against 232-276)
 * and CPU, not enough to trade that margin
 * (docs/adr/0004-a-pass-confirms-its-due-promotions-in-one-round.md).
 * Reads stay bounded per cluster by the LIST limits of VerifiedTargets.
 */
export const RECHECKS_IN_FLIGHT = 32;

/** Coalescing queue of whole-pipeline re-checks; implements PipelineTrigger. */
export class PipelineQueue extends QueueFront<PipelineId> implements PipelineTrigger {
  protected readonly queue: WorkQueue<PipelineId>;

  /**
   * Builds the queue. Re-checks span clusters, so there is one cap: globalConcurrency, or
   * RECHECKS_IN_FLIGHT when absent.
   */
  constructor(private readonly options: PipelineQueueOptions) {
    super();
    const concurrency = options.globalConcurrency ?? RECHECKS_IN_FLIGHT;
    this.queue = new WorkQueue<PipelineId>({
      keyOf: (id) => id,
      process: (id) => (options.loaded.has(id) ? options.reconciler.reconcile(id) : doneNow()),
      ...commonOptions(options),
      perGroupConcurrency: concurrency,
      globalConcurrency: concurrency,
    });
  }

  /** Queues a re-check: 'unknown' for a Pipeline not loaded, 'full' at capacity. */
  requestPipeline(id: PipelineId, source: RecheckSource): RecheckResult {
    // Anything but the resync is someone waiting (an event, an approval): it goes first.
    const urgent = source !== 'resync';
    const result = this.options.loaded.has(id)
      ? queuedOrFull(this.queue.offer(id, urgent))
      : 'unknown';
    this.options.onRequest?.(id, source, result);
    return result;
  }

  /**
   * Re-checks at once, ahead of the resync's and with their failures forgotten, the loaded
   * Pipelines of `ids` and every Pipeline backing off after a failed check: for when the
   * management API answers again, so that nothing sleeps through the recovery on a long
   * backoff. Returns the Pipelines hurried so.
   */
  recheckNow(ids: readonly PipelineId[]): Set<PipelineId> {
    const hurried = new Set(this.queue.expediteBackoffs());
    for (const id of ids) {
      if (this.options.loaded.has(id) && this.queue.expedite(id) !== 'full') hurried.add(id);
    }
    return hurried;
  }
}

function queuedOrFull(result: OfferResult): 'queued' | 'full' {
  return result === 'full' ? 'full' : 'queued';
}
