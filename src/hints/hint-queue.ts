/**
 * The [hints] stage. A hint about an object no Pipeline references is dropped here, before any
 * cluster read; the rest are coalesced per object and processed under a per-cluster cap.
 * Whole-pipeline re-checks (legacy webhook, resync, scheduled retries) have their own queue.
 */
import type { GatewayConfig } from '../config/types.js';
import { parsePipelineId, pipelineId } from '../index/pipeline-index.js';
import { hintKeyString } from './types.js';
import type { EnqueueResult, HintKey, HintSink, HintSource, PipelineTrigger } from './types.js';
import type { Scheduler } from './scheduler.js';
import { WorkQueue } from './work-queue.js';
import type {
  OfferResult,
  ProcessResult,
  WorkQueueEvent,
  WorkQueueStats,
} from './work-queue-types.js';

/** Global cap on concurrent runs when the caller sets none: several clusters at full cap. */
export const defaultGlobalConcurrency = 32;

/** Options shared by both queues. */
interface QueueCommon<K> {
  /** capacity, perClusterConcurrency, retryBaseMs, retryMaxMs, maxRetries. */
  hints: GatewayConfig['hints'];
  /** Cap on runs at once across all clusters; defaultGlobalConcurrency when absent. */
  globalConcurrency?: number;
  scheduler?: Scheduler;
  random?: () => number;
  observer?: (event: WorkQueueEvent<K>) => void;
}

/** Options of HintQueue. */
export interface HintQueueOptions extends QueueCommon<HintKey> {
  /** Whether some Pipeline references the object (PipelineIndex.references); must be O(1). */
  references: (key: HintKey) => boolean;
  /** The verify stage: read the object once, re-evaluate the Pipelines that reference it. */
  process: (key: HintKey) => Promise<ProcessResult>;
  /** Called for every offer with its result, for metrics and logs. */
  onOffer?: (key: HintKey, source: HintSource, result: EnqueueResult) => void;
  /** Reads of one object start at least this many ms apart (see WorkQueue); default 0. */
  minReadIntervalMs?: number;
}

/** Coalescing, bounded queue of object hints; implements the HintSink ingress feeds. */
export class HintQueue implements HintSink {
  private readonly queue: WorkQueue<HintKey>;

  /** Builds the queue; nothing runs until the first offer. */
  constructor(private readonly options: HintQueueOptions) {
    const { hints } = options;
    this.queue = new WorkQueue<HintKey>({
      keyOf: hintKeyString,
      groupOf: (key) => key.cluster,
      // The Pipeline may have gone while the hint waited: then there is nothing to read.
      process: (key) => (options.references(key) ? options.process(key) : doneNow()),
      capacity: hints.capacity,
      perGroupConcurrency: hints.perClusterConcurrency,
      globalConcurrency: options.globalConcurrency ?? defaultGlobalConcurrency,
      retryBaseMs: hints.retryBaseMs,
      retryMaxMs: hints.retryMaxMs,
      maxRetries: hints.maxRetries,
      minRunIntervalMs: options.minReadIntervalMs ?? 0,
      scheduler: options.scheduler,
      random: options.random,
      observer: options.observer,
    });
  }

  /**
   * Queues a hint: 'dropped-unreferenced' (never processed) when no Pipeline references the
   * object, 'coalesced' when one is pending, 'full' (caller answers 503) at capacity.
   */
  offer(key: HintKey, source: HintSource): EnqueueResult {
    const result: EnqueueResult = this.options.references(key)
      ? this.queue.offer(key)
      : 'dropped-unreferenced';
    this.options.onOffer?.(key, source, result);
    return result;
  }

  /** Counters and gauges of the underlying queue. */
  stats(): WorkQueueStats {
    return this.queue.stats();
  }

  /** Resolves when no hint is waiting, due or being processed. */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  /** Stops taking hints; resolves when in-flight processing has finished. */
  stop(): Promise<void> {
    return this.queue.stop();
  }
}

/** Options of PipelineQueue. */
export interface PipelineQueueOptions extends QueueCommon<string> {
  /** Whether the Pipeline `namespace/name` is indexed (PipelineIndex.has). */
  has: (namespace: string, name: string) => boolean;
  /** Re-checks one whole Pipeline by id (`namespace/name`). */
  process: (pipelineId: string) => Promise<ProcessResult>;
  /** Called for every request with its result, for metrics and logs. */
  onRequest?: (id: string, source: HintSource, result: 'queued' | 'unknown' | 'full') => void;
}

/** Coalescing queue of whole-pipeline re-checks by id; implements PipelineTrigger. */
export class PipelineQueue implements PipelineTrigger {
  private readonly queue: WorkQueue<string>;

  /**
   * Builds the queue. Re-checks span clusters, so there is one cap: globalConcurrency, or
   * perClusterConcurrency when absent (a re-check reads each of its clusters in turn).
   */
  constructor(private readonly options: PipelineQueueOptions) {
    const { hints } = options;
    const concurrency = options.globalConcurrency ?? hints.perClusterConcurrency;
    this.queue = new WorkQueue<string>({
      keyOf: (id) => id,
      process: (id) => (this.known(id) ? options.process(id) : doneNow()),
      capacity: hints.capacity,
      perGroupConcurrency: concurrency,
      globalConcurrency: concurrency,
      retryBaseMs: hints.retryBaseMs,
      retryMaxMs: hints.retryMaxMs,
      maxRetries: hints.maxRetries,
      scheduler: options.scheduler,
      random: options.random,
      observer: options.observer,
    });
  }

  /** Queues a re-check: 'unknown' for a Pipeline not in the index, 'full' at capacity. */
  requestPipeline(
    namespace: string,
    name: string,
    source: HintSource,
  ): 'queued' | 'unknown' | 'full' {
    const id = pipelineId(namespace, name);
    const result = this.options.has(namespace, name)
      ? queuedOrFull(this.queue.offer(id))
      : 'unknown';
    this.options.onRequest?.(id, source, result);
    return result;
  }

  /** Re-checks `id` after `ms` (keeps the earliest if one is pending); 'unknown' if not indexed. */
  schedule(id: string, ms: number): OfferResult | 'unknown' {
    return this.known(id) ? this.queue.addAfter(id, ms) : 'unknown';
  }

  /** Counters and gauges of the underlying queue. */
  stats(): WorkQueueStats {
    return this.queue.stats();
  }

  /** Resolves when no re-check is waiting, due or running. */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  /** Stops taking requests and cancels scheduled re-checks; resolves when runs finish. */
  stop(): Promise<void> {
    return this.queue.stop();
  }

  private known(id: string): boolean {
    const parsed = parsePipelineId(id);
    return parsed !== undefined && this.options.has(parsed.namespace, parsed.name);
  }
}

function doneNow(): Promise<ProcessResult> {
  return Promise.resolve('done');
}

function queuedOrFull(result: OfferResult): 'queued' | 'full' {
  return result === 'full' ? 'full' : 'queued';
}
