/**
 * Writing a computed status back to the Pipeline, only when it changed, without ever touching
 * promotion records or authorizations: those are copied from the freshly read object and the
 * resourceVersion precondition turns any newer claim into a Conflict instead of an overwrite.
 */
import type { PipelineWriter } from '../kube/types.js';
import { replacePipelineStatus, type StatusWriteResult } from '../pipeline/status-write.js';
import type { Pipeline, PipelineStatus } from '../pipeline/types.js';
import { statusEqual } from './pipeline-status.js';

/** Unchanged: nothing was written. Otherwise the result of the conditional write. */
export type StatusWriteOutcome = { outcome: 'Unchanged'; pipeline: Pipeline } | StatusWriteResult;

/**
 * Write `status` (with `pipeline`'s own promotion records) unless it equals the stored status.
 * `pipeline` must be freshly read; on Conflict the caller re-reads and recomputes.
 */
export async function writeStatusIfChanged(
  writer: PipelineWriter,
  pipeline: Pipeline,
  status: PipelineStatus,
): Promise<StatusWriteOutcome> {
  const next = withStoredPromotions(status, pipeline.status);
  if (statusEqual(next, pipeline.status)) return { outcome: 'Unchanged', pipeline };
  return replacePipelineStatus(writer, { ...pipeline, status: next });
}

/**
 * `status` with every environment's promotion record and authorizations replaced by the ones
 * in `stored`: the claim, the outcome writer and the authorization recorder own those fields.
 */
export function withStoredPromotions(
  status: PipelineStatus,
  stored: PipelineStatus | undefined,
): PipelineStatus {
  if (status.environments === undefined) return status;
  const environments = Object.fromEntries(
    Object.entries(status.environments).map(([name, env]) => {
      const { promotion, approvals, ...next } = env;
      const kept = stored?.environments?.[name];
      return [
        name,
        {
          ...next,
          ...(kept?.promotion === undefined ? {} : { promotion: kept.promotion }),
          ...(kept?.approvals === undefined ? {} : { approvals: kept.approvals }),
        },
      ];
    }),
  );
  return { ...status, environments };
}
