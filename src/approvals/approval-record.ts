/**
 * Recording one authorization in status.environments[env].approvals, as a change handed to the
 * one status writer (resourceVersion precondition, re-applied on a conflict), so every replica
 * sees it and a restart loses none. A credential id already recorded anywhere
 * in the Pipeline is a replay. Old records are pruned as the new one is added: those of the
 * current and the previous revision stay, and any whose credential has not expired yet.
 */
import type { StatusChange } from '../kube/status-writer.js';
import { parseTimestamp } from '../time/kube-time.js';
import type {
  AuthorizationRecord,
  Pipeline,
  PipelineStatus,
} from '../pipeline/pipeline-resource.js';

/** The most records one environment keeps (the CRD's maxItems). */
export const MAX_RECORDS = 256;

/** Whether a credential id is recorded in any environment of the Pipeline. */
export function isUsed(status: PipelineStatus | undefined, jti: string): boolean {
  return Object.values(status?.environments ?? {}).some((env) =>
    (env.approvals ?? []).some((r) => r.jti === jti),
  );
}

/**
 * The records to keep beside a new one for `revision`: those of `revision`, those of the
 * latest other revision, and those whose credential expires after `now` (still replayable).
 */
export function pruned(
  records: readonly AuthorizationRecord[],
  revision: string,
  now: number,
): AuthorizationRecord[] {
  const previous = records.findLast((r) => r.revision !== revision)?.revision;
  return records.filter((r) => {
    if (r.revision === revision || r.revision === previous) return true;
    const expiresAt = parseTimestamp(r.expiresAt);
    return expiresAt !== undefined && expiresAt > now;
  });
}

function withRecord(
  status: PipelineStatus | undefined,
  environment: string,
  kept: AuthorizationRecord[],
): PipelineStatus {
  const environments = status?.environments ?? {};
  return {
    ...status,
    environments: {
      ...environments,
      [environment]: { ...environments[environment], approvals: kept },
    },
  };
}

/**
 * Recorded: the record was added. Replayed: its `jti` is already recorded. Full: the
 * environment holds MAX_RECORDS live records. NotWaiting: the stored status no longer lets the
 * environment take this authorization (a promotion or a rejection overtook it).
 */
export type RecordVerdict = 'Recorded' | 'Replayed' | 'Full' | 'NotWaiting';

/**
 * Adding `record` to `environment` as a status change, re-applied to whatever is stored after a
 * conflict: a replay is refused first, then `stillWaiting` (pure) must hold on the stored
 * Pipeline, then the environment's records are pruned and the new one added.
 */
export function authorizationChange(
  environment: string,
  record: AuthorizationRecord,
  now: number,
  stillWaiting: (stored: Pipeline) => boolean,
): StatusChange<RecordVerdict> {
  return (stored) => {
    if (record.jti !== undefined && isUsed(stored.status, record.jti)) return { keep: 'Replayed' };
    if (!stillWaiting(stored)) return { keep: 'NotWaiting' };
    const existing = stored.status?.environments?.[environment]?.approvals ?? [];
    const kept = [...pruned(existing, record.revision, now), record];
    if (kept.length > MAX_RECORDS) return { keep: 'Full' };
    return { write: withRecord(stored.status, environment, kept), verdict: 'Recorded' };
  };
}
