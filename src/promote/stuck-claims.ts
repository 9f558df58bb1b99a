/**
 * Claims nobody concluded: a record still `Claimed` after its deadline means the replica that
 * claimed it died or hung, and no replica has resolved it yet (claim-resolution.ts does that
 * when the Pipeline is next checked). Counted at scrape time for the claim-stuck alert.
 */
import type { PipelineStatus } from '../pipeline/pipeline-resource.js';
import { claimExpiresAt, recordState } from '../evaluate/retry.js';
import type { RetryPolicy } from '../evaluate/decisions.js';

/** How many environments in `statuses` hold a `Claimed` record whose deadline is past at `now`. */
export function claimsPastDeadline(
  statuses: Iterable<PipelineStatus | undefined>,
  policy: Pick<RetryPolicy, 'claimTimeoutMs'>,
  now: number,
): number {
  let count = 0;
  for (const status of statuses) {
    for (const environment of Object.values(status?.environments ?? {})) {
      const record = environment.promotion;
      if (record === undefined || recordState(record) !== 'Claimed') continue;
      const expiresAt = claimExpiresAt(record, policy);
      if (expiresAt !== undefined && now >= expiresAt) count++;
    }
  }
  return count;
}
