/**
 * The [hints] stage. A hint about an object no Pipeline references is dropped here, before any
 * cluster read; the rest are coalesced per object and processed under a per-cluster cap.
 */
import type { GatewayConfig } from '../config/gateway-config.js';
import { objectKeyId, type ObjectKey } from '../pipeline/object-key.js';
import type { Scheduler } from '../clock.js';
import { QueueFront } from '../queue/front.js';
import { WorkQueue } from '../queue/work-queue.js';
import type { ProcessResult, WorkQueueEvent } from '../queue/queue-model.js';
import type { EnqueueResult, HintSink, HintSource } from './sinks.js';

/** Global cap on concurrent runs when the caller sets none: several clusters at full cap. */
export const defaultGlobalConcurrency = 32;

/** Options shared by the hint and pipeline queues. */
export interface QueueCommon<K> {
  /** capacity, perClusterConcurrency, retryBaseMs, retryMaxMs, maxRetries. */
  hints: GatewayConfig['hints'];
  /** Cap on runs at once across all clusters; defaultGlobalConcurrency when absent. */
  globalConcurrency?: number;
  scheduler?: Scheduler;
  random?: () => number;
  observer?: (event: WorkQueueEvent<K>) => void;
}

/** Whether some Pipeline references an object: what the hint queue drops hints by. */
export interface ReferenceIndex {
  /** Whether some loaded Pipeline references `key` (PipelineCatalog); must be O(1). */
  references(key: ObjectKey): boolean;
}

/** The stage after the hint queue: what a hint turns into (verify/hinted-read.ts). */
export interface HintedReads {
  /** Reads the object once and re-checks the Pipelines that reference it; 'retry' backs off. */
  read(key: ObjectKey): Promise<ProcessResult>;
}

/** Options of HintQueue. */
export interface HintQueueOptions extends QueueCommon<ObjectKey> {
  /** The Pipelines' references (PipelineCatalog): a hint about anything else is dropped. */
  index: ReferenceIndex;
  /** The verify stage: read the object once, re-evaluate the Pipelines that reference it. */
  reads: HintedReads;
  /** Called for every offer with its result, for metrics and logs. */
  onOffer?: (key: ObjectKey, source: HintSource, result: EnqueueResult) => void;
  /** Reads of one object start at least this many ms apart (see WorkQueue); default 0. */
  minReadIntervalMs?: number;
}

/** The WorkQueue options both queues take straight from config.hints and QueueCommon. */
export function commonOptions<K>(options: QueueCommon<K>) {
  const { hints } = options;
  return {
    capacity: hints.capacity,
    retryBaseMs: hints.retryBaseMs,
    retryMaxMs: hints.retryMaxMs,
    maxRetries: hints.maxRetries,
    scheduler: options.scheduler,
    random: options.random,
    observer: options.observer,
  };
}

/** Resolves at once with 'done': for keys that turned out to need no work. */
export function doneNow(): Promise<ProcessResult> {
  return Promise.resolve('done');
}

/** Coalescing, bounded queue of object hints; implements the HintSink ingress feeds. */
export class HintQueue extends QueueFront<ObjectKey> implements HintSink {
  protected readonly queue: WorkQueue<ObjectKey>;

  /** Builds the queue; nothing runs until the first offer. */
  constructor(private readonly options: HintQueueOptions) {
    super();
    this.queue = new WorkQueue<ObjectKey>({
      keyOf: objectKeyId,
      groupOf: (key) => key.cluster,
      // The Pipeline may have gone while the hint waited: then there is nothing to read.
      process: (key) => (options.index.references(key) ? options.reads.read(key) : doneNow()),
      ...commonOptions(options),
      perGroupConcurrency: options.hints.perClusterConcurrency,
      globalConcurrency: options.globalConcurrency ?? defaultGlobalConcurrency,
      minRunIntervalMs: options.minReadIntervalMs ?? 0,
    });
  }

  /**
   * Queues a hint: 'dropped-unreferenced' (never processed) when no Pipeline references the
   * object, 'coalesced' when one is pending, 'full' (caller answers 503) at capacity.
   */
  offer(key: ObjectKey, source: HintSource): EnqueueResult {
    const result: EnqueueResult = this.options.index.references(key)
      ? this.queue.offer(key)
      : 'dropped-unreferenced';
    this.options.onOffer?.(key, source, result);
    return result;
  }
}
