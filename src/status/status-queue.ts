/**
 * Status writes, behind the evaluation: a Pipeline's check computes its status and hands it
 * here, so checks (and the events behind them) never wait for the status PUTs of others. One
 * pending write per Pipeline: a newer computation replaces one not started yet. Promotion
 * records are not written here: the claim and the outcome write those themselves, at once.
 */
import { commonOptions, type QueueCommon } from '../hints/hint-queue.js';
import type { PipelineId } from '../pipeline/id.js';
import { QueueFront } from '../queue/front.js';
import { WorkQueue } from '../queue/work-queue.js';
import type { ViewInputs } from './view-change.js';

/**
 * Status writes in flight (all to the management cluster). A wave writes one status per
 * promotion behind the checks (32 at once): with 4 in flight and an API server answering in
 * 100 ms, 8,000 of them took 200 s of a wave that must end before the next pass (issue 20).
 */
export const STATUS_WRITES_IN_FLIGHT = 16;

/** What one status write is computed from: the Pipeline as last seen and its check's results. */
export type StatusInputs = ViewInputs;

/** Options of StatusQueue; `write` computes and writes one status (syncView). */
export interface StatusQueueOptions extends QueueCommon<PipelineId> {
  write: (inputs: StatusInputs) => Promise<void>;
}

/** Coalescing queue of status writes, one pending per Pipeline. */
export class StatusQueue extends QueueFront<PipelineId> {
  protected readonly queue: WorkQueue<PipelineId>;
  private readonly pending = new Map<PipelineId, StatusInputs>();

  /** Builds the queue; nothing runs until the first request. */
  constructor(private readonly options: StatusQueueOptions) {
    super();
    const concurrency = options.globalConcurrency ?? STATUS_WRITES_IN_FLIGHT;
    this.queue = new WorkQueue<PipelineId>({
      keyOf: (id) => id,
      process: async (id) => {
        const inputs = this.pending.get(id);
        this.pending.delete(id);
        if (inputs === undefined) return 'done';
        try {
          await options.write(inputs);
        } catch (error) {
          // The queue retries the key with backoff: it must find something to write then.
          if (!this.pending.has(id)) this.pending.set(id, inputs);
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
   * Queues the write of what `inputs` compute, replacing a pending one for `id`. When the queue
   * is full the write runs now instead, so no computed status is dropped.
   */
  async request(id: PipelineId, inputs: StatusInputs): Promise<void> {
    this.pending.set(id, inputs);
    if (this.queue.offer(id, false) !== 'full') return;
    this.pending.delete(id);
    await this.options.write(inputs);
  }
}
