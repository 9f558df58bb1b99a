/**
 * The status side of pull-request promotions: each check of a Pipeline reads its open requests'
 * state again (spaced per environment by the refresh interval) and records a change, so status
 * says when a request was merged, or closed by a person and not to be reopened.
 */
import type { StatusChange, StatusWriter } from '../../../kube/status-writer.js';
import type { GatewayLogger } from '../../../log.js';
import { jsonEqual } from '../../../json/json-equal.js';
import { pipelineIdOf, type PipelineId } from '../../../pipeline/id.js';
import type {
  Pipeline,
  PromotionRecord,
  PullRequestStrategySpec,
} from '../../../pipeline/pipeline-resource.js';
import { withPromotion } from '../../claim.js';
import type { ForgeFailure } from '../../../forge/forge-answers.js';
import { openRequests, withRequestState } from './refresh.js';
import type { PullRequestRef } from '../../../forge/forge-model.js';

/** What the refresher needs; `state` asks the forge (see refresh.ts currentState). */
export interface PullRequestRefreshDeps {
  status: Pick<StatusWriter, 'apply'>;
  logger: GatewayLogger;
  now: () => number;
  intervalMs: number;
  state: (
    spec: PullRequestStrategySpec,
    namespace: string,
    url: string,
  ) => Promise<PullRequestRef['state'] | ForgeFailure>;
}

/** Reads open requests' states again and records changes; remembers when each was last read. */
export class PullRequestRefresher {
  private readonly checkedAt = new Map<PipelineId, Map<string, number>>();

  constructor(private readonly deps: PullRequestRefreshDeps) {}

  /** The Pipeline after recording any state change (the input itself when nothing changed). */
  async refresh(pipeline: Pipeline): Promise<Pipeline> {
    const id = pipelineIdOf(pipeline);
    const open = openRequests(pipeline.spec, pipeline.status?.environments ?? {});
    const previous = this.checkedAt.get(id);
    const checked = new Map<string, number>();
    let current = pipeline;
    for (const { environment, spec, record } of open) {
      const url = record.pullRequest?.url ?? '';
      const key = `${environment}\n${url}`;
      const last = previous?.get(key);
      const now = this.deps.now();
      if (last !== undefined && now - last < this.deps.intervalMs) {
        checked.set(key, last);
        continue;
      }
      checked.set(key, now);
      const state = await this.deps.state(spec, pipeline.metadata.namespace, url);
      if (typeof state !== 'string') {
        this.deps.logger.warn(
          { pipeline: id, environment, reason: state.reason, message: state.message },
          'pull request state could not be read',
        );
        continue;
      }
      if (state === 'open') continue;
      const written = await this.record(
        current,
        environment,
        record,
        withRequestState(record, state),
      );
      // Recorded: the request is no longer open. Lost: the next check reads it again.
      checked.delete(key);
      if (written !== undefined) current = written;
    }
    if (checked.size === 0) this.checkedAt.delete(id);
    else this.checkedAt.set(id, checked);
    return current;
  }

  /**
   * Ms until an open request of `id` is due to be read again, or undefined when it has none: the
   * reconciler requeues the Pipeline then, so a merge shows without waiting for an event. An
   * interval of 0 means "on every check" and never requeues (it would spin).
   */
  dueInMs(id: PipelineId): number | undefined {
    const checked = this.checkedAt.get(id);
    if (checked === undefined || this.deps.intervalMs === 0) return undefined;
    const now = this.deps.now();
    const waits = [...checked.values()].map((at) => Math.max(0, at + this.deps.intervalMs - now));
    return Math.min(...waits);
  }

  /** Forgets a deleted Pipeline. */
  forget(id: PipelineId): void {
    this.checkedAt.delete(id);
  }

  private async record(
    pipeline: Pipeline,
    environment: string,
    from: PromotionRecord,
    to: PromotionRecord,
  ): Promise<Pipeline | undefined> {
    const written = await this.deps.status.apply(
      pipeline,
      requestStateChange(environment, from, to, this.deps.now()),
    );
    if (written.outcome !== 'Written')
      return written.outcome === 'Kept' ? written.pipeline : undefined;
    this.deps.logger.info(
      { pipeline: pipelineIdOf(pipeline), environment, pullRequest: to.pullRequest },
      'pull request state changed',
    );
    return written.pipeline;
  }
}

/**
 * The request's new state as a status change: it applies only while the stored record is still
 * the one whose request was read (another promotion may have replaced it meanwhile).
 */
export function requestStateChange(
  environment: string,
  from: PromotionRecord,
  to: PromotionRecord,
  at: number,
): StatusChange<'Recorded' | 'Moved'> {
  return (stored) => {
    const current = stored.status?.environments?.[environment]?.promotion;
    if (!jsonEqual(current, from)) return { keep: 'Moved' };
    return { write: withPromotion(stored.status, environment, to, at), verdict: 'Recorded' };
  };
}
