/**
 * Recording one authorization in status.environments[env].approvals, the way a promotion is
 * claimed: an optimistic-concurrency write with the Pipeline's resourceVersion as precondition,
 * so every replica sees it and a restart loses none. A credential id already recorded anywhere
 * in the Pipeline is a replay. Old records are pruned as the new one is added: those of the
 * current and the previous revision stay, and any whose credential has not expired yet.
 */
import type { PipelineWriter } from '../kube/types.js';
import { readPipeline, replacePipelineStatus } from '../pipeline/status-write.js';
import { parseTimestamp } from '../pipeline/time.js';
import type { AuthorizationRecord, Pipeline, PipelineStatus } from '../pipeline/types.js';

/** The most records one environment keeps (the CRD's maxItems). */
export const MAX_RECORDS = 256;
/** How often a 409 is answered by re-reading and trying again. */
const MAX_CONFLICT_RETRIES = 5;

/** What became of the write. */
export type RecordResult =
  | { outcome: 'Recorded'; pipeline: Pipeline }
  | { outcome: 'Replayed' }
  | { outcome: 'Full' }
  | { outcome: 'Gone' };

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
  pipeline: Pipeline,
  environment: string,
  kept: AuthorizationRecord[],
): Pipeline {
  const environments = pipeline.status?.environments ?? {};
  return {
    ...pipeline,
    status: {
      ...pipeline.status,
      environments: {
        ...environments,
        [environment]: { ...environments[environment], approvals: kept },
      },
    },
  };
}

/**
 * Adds `record` to `environment` of `pipeline` (as read). Replayed when its `jti` is already
 * recorded; Full when the environment holds MAX_RECORDS live records; Gone when the Pipeline was
 * deleted. A conflict re-reads and re-checks, at most a few times, then throws.
 */
export async function recordAuthorization(
  writer: PipelineWriter,
  pipeline: Pipeline,
  environment: string,
  record: AuthorizationRecord,
  now: number,
): Promise<RecordResult> {
  let current = pipeline;
  for (let attempt = 0; attempt <= MAX_CONFLICT_RETRIES; attempt++) {
    if (record.jti !== undefined && isUsed(current.status, record.jti))
      return { outcome: 'Replayed' };
    const existing = current.status?.environments?.[environment]?.approvals ?? [];
    const kept = [...pruned(existing, record.revision, now), record];
    if (kept.length > MAX_RECORDS) return { outcome: 'Full' };
    const written = await replacePipelineStatus(writer, withRecord(current, environment, kept));
    if (written.outcome !== 'Conflict')
      return written.outcome === 'Gone'
        ? written
        : { outcome: 'Recorded', pipeline: written.pipeline };
    const fresh = await readPipeline(writer, current);
    if (fresh === undefined) return { outcome: 'Gone' };
    current = fresh;
  }
  throw new Error(`authorization of ${environment} conflicted ${MAX_CONFLICT_RETRIES + 1} times`);
}
