/**
 * What a rollback's claim writes besides its record: the mark that says it is a rollback (from
 * what, by whom, why, the statements' ids) and, in the same status write, the hold on the
 * revision rolled back, so that the requests it answers count no more and the evaluator does not
 * promote that revision there again until the hold is lifted or a newer one arrives. Pure.
 */
import type { RollbackView } from '../evaluate/decisions.js';
import type {
  PipelineStatus,
  PromotionRecord,
  RevisionHold,
  RollbackMark,
} from '../pipeline/pipeline-resource.js';
import { truncate } from '../text/text.js';
import { rfc3339Millis } from '../time/kube-time.js';

/** The most holds an environment keeps (the CRD's maxItems), the oldest lifted ones dropped first. */
export const MAX_HOLDS = 20;

/** The record's mark of a rollback decision, bounded as the CRD bounds it. */
export function rollbackMark(view: RollbackView): RollbackMark {
  return {
    from: view.from,
    by: view.by.slice(0, 16),
    reason: truncate(view.reason, 1024),
    ...(view.statements.length === 0 ? {} : { statements: view.statements.slice(0, 16) }),
    ...(view.automatic ? { automatic: true } : {}),
    ...(view.train === undefined ? {} : { train: view.train }),
  };
}

/** The hold a rollback claim sets on the revision it rolls back, as of `at` (ms). */
export function holdOf(mark: RollbackMark, at: number): RevisionHold {
  return {
    revision: mark.from,
    reason: mark.automatic === true ? 'FailedVerification' : 'RolledBack',
    by: truncate(mark.by.join(', '), 512),
    // Milliseconds, as the request it answers records (evaluate/rollback.ts compares the two).
    time: rfc3339Millis(at),
    message: truncate(mark.reason, 1024),
  };
}

/**
 * `status` with the hold of `record`'s rollback added to `environment` (none for a promotion,
 * nor when the revision is held already: a retried rollback claims again; nor for a train's
 * rollback: the revision did not fail, and the train's failed release holds the member).
 */
export function withRollbackHold(
  status: PipelineStatus,
  environment: string,
  record: PromotionRecord,
  at: number,
): PipelineStatus {
  const mark = record.rollback;
  const env = status.environments?.[environment];
  if (mark === undefined || mark.train !== undefined || env === undefined) return status;
  const hold = holdOf(mark, at);
  const holds = env.holds ?? [];
  if (
    holds.some(
      (h) => h.revision === hold.revision && h.reason === hold.reason && h.liftedAt === undefined,
    )
  )
    return status;
  return {
    ...status,
    environments: {
      ...status.environments,
      [environment]: { ...env, holds: bounded([...holds, hold]) },
    },
  };
}

/** At most MAX_HOLDS, dropping lifted holds first, then the oldest. */
function bounded(holds: RevisionHold[]): RevisionHold[] {
  const out = [...holds];
  while (out.length > MAX_HOLDS) {
    const lifted = out.findIndex((h) => h.liftedAt !== undefined);
    out.splice(lifted >= 0 ? lifted : 0, 1);
  }
  return out;
}
