/**
 * Outcomes whose write failed after their strategy ran (the management API was unreachable, or
 * the status stayed contended). Running the strategy again would deliver twice, so the outcome
 * itself is kept in memory and written by the Pipeline's next checks, still only over our own
 * claim; the claim timeout resolves what this replica cannot (a crash loses this memory).
 */
import type { StatusWrite, StatusWriter } from '../kube/status-writer.js';
import type { PipelineId } from '../pipeline/id.js';
import type { Pipeline, PromotionRecord } from '../pipeline/pipeline-resource.js';
import { outcomeChange, type OutcomeVerdict } from './outcome.js';
import type { StrategyResult } from './strategies/strategy.js';

/** One outcome waiting to be written. */
interface PendingOutcome {
  environment: string;
  claim: PromotionRecord;
  result: StrategyResult;
  /** When the strategy returned (ms). */
  finishedAt: number;
}

/** What became of the outcomes of one Pipeline on a replay. */
export interface ReplayResult {
  /** The stored Pipeline after the writes, when any was read or written. */
  pipeline?: Pipeline;
  /** Outcomes written now (their promotions are no longer pending). */
  written: number;
  /** Outcomes still waiting (the write failed again). */
  waiting: number;
}

/** Unrecorded outcomes per Pipeline, written on the next checks. */
export class UnrecordedOutcomes {
  private readonly pending = new Map<PipelineId, PendingOutcome[]>();

  /**
   * `onRecorded` is told of each outcome this writes, as the promotion's outcome (`Promoted` or
   * `Failed`): the attempt was counted `Unrecorded` when its first write failed, and without
   * this the promotion would never be counted at all (the metrics).
   */
  constructor(
    private readonly status: Pick<StatusWriter, 'apply' | 'read'>,
    private readonly onRecorded?: (outcome: 'Promoted' | 'Failed') => void,
  ) {}

  /** Keeps an outcome whose write failed, replacing an older one of the same environment. */
  remember(id: PipelineId, outcome: PendingOutcome): void {
    const others = (this.pending.get(id) ?? []).filter(
      (o) => o.environment !== outcome.environment,
    );
    this.pending.set(id, [...others, outcome]);
  }

  /** Whether outcomes of `id` wait to be written. */
  has(id: PipelineId): boolean {
    return this.pending.has(id);
  }

  /**
   * Writes the kept outcomes of `pipeline`, read fresh, over our own claims only. One that lands,
   * or whose claim was superseded or whose Pipeline is gone, is forgotten; one that fails again
   * (or whose Pipeline cannot be read) is kept.
   */
  async replay(id: PipelineId, pipeline: Pipeline): Promise<ReplayResult> {
    const outcomes = this.pending.get(id);
    if (outcomes === undefined) return { written: 0, waiting: 0 };
    // Judged on the stored object, never a cached one: a stale copy would not show our claim.
    let current: Pipeline | undefined;
    try {
      current = await this.status.read(pipeline.metadata);
    } catch {
      return { written: 0, waiting: outcomes.length };
    }
    const kept: PendingOutcome[] = [];
    let written = 0;
    for (const outcome of outcomes) {
      if (current === undefined) break;
      const { change } = outcomeChange(
        outcome.environment,
        outcome.claim,
        outcome.result,
        outcome.finishedAt,
      );
      try {
        const result: StatusWrite<OutcomeVerdict> = await this.status.apply(current, change);
        if (result.outcome === 'Contended') kept.push(outcome);
        else if (result.outcome === 'Gone') current = undefined;
        else {
          current = result.pipeline;
          if (result.outcome === 'Written') {
            written++;
            this.onRecorded?.(outcome.result.ok ? 'Promoted' : 'Failed');
          }
        }
      } catch {
        kept.push(outcome);
      }
    }
    if (kept.length === 0 || current === undefined) this.pending.delete(id);
    else this.pending.set(id, kept);
    return {
      ...(current === undefined ? {} : { pipeline: current }),
      written,
      waiting: kept.length,
    };
  }

  /** Forgets a deleted Pipeline. */
  forget(id: PipelineId): void {
    this.pending.delete(id);
  }
}
