/**
 * Status writes, behind the evaluation: a Pipeline's check hands its id here, so checks (and
 * the events behind them) never wait for the status PUTs of others. The view is computed when
 * its write starts, from the latest reads (as a controller's worker reads its cache for a key):
 * what waits is a Pipeline's id, not a check's results (at fleet scale they dwarf the state
 * itself) nor its object (the catalog holds its state), except an object newer
 * than the catalog's, which a check wrote itself. One pending write per Pipeline: a newer check
 * replaces one not started yet. Promotion records are not written here: the claim and the
 * outcome write those themselves, at once.
 */
import { commonOptions, type QueueCommon } from '../hints/hint-queue.js';
import type { PipelineId } from '../pipeline/id.js';
import { QueueFront } from '../queue/front.js';
import { WorkQueue } from '../queue/work-queue.js';
import type { Pipeline } from '../pipeline/pipeline-resource.js';

/**
 * Status writes in flight (all to the management cluster). A wave writes one status per
 * promotion behind the checks (32 at once): with 4 in flight and an API server answering in
 * 100 ms, 8,000 of them took 200 s of a wave that must end before the next pass
 * (docs/adr/0004-a-pass-confirms-its-due-promotions-in-one-round.md).
 */
export const STATUS_WRITES_IN_FLIGHT = 16;

/** The stage after the status queue: a Pipeline's view written (status/view-sync.ts). */
export interface StatusViewWriter {
  /**
   * Computes the view of the Pipeline from the latest reads and writes it, on `newer` as the
   * stored object when given (else the catalog's latest).
   */
  write(id: PipelineId, newer: Pipeline | undefined): Promise<void>;
}

/** Options of StatusQueue. */
export interface StatusQueueOptions extends QueueCommon<PipelineId> {
  /** Writes one Pipeline's view when its turn comes. */
  writer: StatusViewWriter;
}

/** Coalescing queue of status writes, one pending per Pipeline. */
export class StatusQueue extends QueueFront<PipelineId> {
  protected readonly queue: WorkQueue<PipelineId>;
  private readonly pending = new Map<PipelineId, Pipeline | undefined>();

  /** Builds the queue; nothing runs until the first request. */
  constructor(private readonly options: StatusQueueOptions) {
    super();
    const concurrency = options.globalConcurrency ?? STATUS_WRITES_IN_FLIGHT;
    this.queue = new WorkQueue<PipelineId>({
      keyOf: (id) => id,
      process: async (id) => {
        if (!this.pending.has(id)) return 'done';
        const newer = this.pending.get(id);
        this.pending.delete(id);
        try {
          await options.writer.write(id, newer);
        } catch (error) {
          // The queue retries the key with backoff: it must find something to write then.
          if (!this.pending.has(id)) this.pending.set(id, newer);
          throw error;
        }
        return 'done';
      },
      ...commonOptions(options),
      perGroupConcurrency: concurrency,
      globalConcurrency: concurrency,
    });
  }

  /**
   * Queues the write of the Pipeline's view, replacing a pending one for `id`; `newer` is its
   * object when the check wrote one the catalog may not hold yet. When the queue is full the
   * write runs now instead, so no check goes unwritten.
   */
  async request(id: PipelineId, newer?: Pipeline): Promise<void> {
    this.pending.set(id, newer);
    if (this.queue.offer(id, false) !== 'full') return;
    this.pending.delete(id);
    await this.options.writer.write(id, newer);
  }
}
