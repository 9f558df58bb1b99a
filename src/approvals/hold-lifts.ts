/**
 * The status change that lifts the holds on one revision of one environment, and the Event that
 * records a rollback request on its Pipeline. Pure.
 */
import type { EventRecord } from '../kube/ports.js';
import type { StatusChange } from '../kube/status-writer.js';
import { involvedObjectOf } from '../pipeline/involved-object.js';
import type { AuthorizationRecord, Pipeline } from '../pipeline/pipeline-resource.js';
import { display } from '../text/text.js';
import { rfc3339 } from '../time/kube-time.js';

/**
 * Marks every hold on `revision` in `environment` not lifted yet as lifted by `by` at `at` (ms),
 * re-applied to whatever is stored; the verdict counts them, and none keeps the status as it is.
 */
export function liftChange(
  environment: string,
  revision: string,
  by: string,
  at: number,
): StatusChange<number> {
  return (stored) => {
    const env = stored.status?.environments?.[environment];
    let lifted = 0;
    const holds = (env?.holds ?? []).map((h) => {
      if (h.revision !== revision || h.liftedAt !== undefined) return h;
      lifted += 1;
      return { ...h, liftedAt: rfc3339(at), liftedBy: by };
    });
    if (lifted === 0 || env === undefined) return { keep: 0 };
    const environments = { ...stored.status?.environments, [environment]: { ...env, holds } };
    return { write: { ...stored.status, environments }, verdict: lifted };
  };
}

/** The Warning Event for a recorded rollback request. */
export function rollbackEvent(
  pipeline: Pipeline,
  record: AuthorizationRecord,
  answer: { environment: string; from: string; revision: string; quorum: string },
): EventRecord {
  return {
    involvedObject: involvedObjectOf(pipeline),
    type: 'Warning',
    reason: 'RollbackRequested',
    message: `${display(record.principal)} asked to roll ${answer.environment} back from ${display(answer.from)} to ${display(answer.revision)} (${answer.quorum}): ${display(record.comment, 256)}`,
    annotations: {
      environment: answer.environment,
      revision: record.revision,
      principal: record.principal,
    },
  };
}
