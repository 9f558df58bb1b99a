/**
 * The status side of pull-request promotions: each check of a Pipeline reads its open requests'
 * state again (spaced per environment by the refresh interval) and records a change, so status
 * says when a request was merged, or closed by a person and not to be reopened.
 */
import type { PipelineWriter } from '../kube/types.js';
import type { GatewayLogger } from '../log.js';
import { pipelineIdOf, type PipelineId } from '../pipeline/id.js';
import { replacePipelineStatus } from '../pipeline/status-write.js';
import type { Pipeline, PullRequestStrategySpec } from '../pipeline/types.js';
import { withPromotion } from '../promote/claim.js';
import type { ForgeFailure } from '../promote/strategies/pull-request/forge-answers.js';
import { openRequests, withRequestState } from '../promote/strategies/pull-request/refresh.js';
import type { PullRequestRef } from '../promote/strategies/pull-request/types.js';

/** What the refresher needs; `state` asks the forge (see refresh.ts currentState). */
export interface PullRequestRefreshDeps {
  writer: PipelineWriter;
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
      const written = await this.record(current, environment, withRequestState(record, state));
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
    record: Parameters<typeof withPromotion>[2],
  ): Promise<Pipeline | undefined> {
    const status = withPromotion(pipeline.status, environment, record);
    const written = await replacePipelineStatus(this.deps.writer, { ...pipeline, status });
    if (written.outcome === 'Written') {
      this.deps.logger.info(
        { pipeline: pipelineIdOf(pipeline), environment, pullRequest: record.pullRequest },
        'pull request state changed',
      );
      return written.pipeline;
    }
    return undefined;
  }
}
