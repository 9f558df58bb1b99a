/**
 * A check's first step on a Pipeline with a claim past its deadline: its environment's targets
 * are read again where this replica's reads are older than the deadline (the attempt was stopped
 * by then, so what they run now is what it did), the claim is concluded on them
 * (promote/claim-resolution.ts) and the conclusion written through the one status writer, before
 * anything is decided: a claim never stays behind, and no new claim waits on it longer than
 * its deadline. A failed attempt whose revision every target runs (it took effect though its
 * answer said otherwise) is concluded the same way.
 */
import type { CatalogTarget } from '../catalog/targets.js';
import type { RetryPolicy } from '../evaluate/decisions.js';
import type { StatusWriter } from '../kube/status-writer.js';
import type { GatewayLogger } from '../log.js';
import { pipelineIdOf } from '../pipeline/id.js';
import type { Pipeline, PromotionResolution } from '../pipeline/pipeline-resource.js';
import {
  arrivedFailures,
  concludeClaim,
  expiredClaims,
  resolutionChange,
  type ClaimResolution,
} from '../promote/claim-resolution.js';
import type { VerifiedTargets } from '../verify/verified-targets.js';
import { statusesFor } from '../evaluation/evaluation-input.js';
import { recordState } from '../evaluate/retry.js';

/** What resolving needs. */
export interface ResolutionDeps {
  status: Pick<StatusWriter, 'apply'>;
  verified: VerifiedTargets;
  policy: Pick<RetryPolicy, 'claimTimeoutMs'>;
  logger: GatewayLogger;
  now: () => number;
  /** Told of each claim this replica resolved (metrics). */
  onResolved?: (resolution: PromotionResolution) => void;
}

/**
 * Resolves the claims of `pipeline` past their deadline; returns the Pipeline to decide on (the
 * stored one after the write, or `pipeline` when nothing was written). Rejects on API errors
 * other than conflicts, as a check's other writes do.
 */
export async function resolveExpiredClaims(
  deps: ResolutionDeps,
  pipeline: Pipeline,
  targets: readonly CatalogTarget[],
): Promise<Pipeline> {
  const expired = expiredClaims(pipeline, deps.policy, deps.now());
  const failed = hasFailure(pipeline);
  if (expired.length === 0 && !failed) return pipeline;
  const stale = targets.filter((t) => {
    const claim = expired.find((c) => c.environment === t.environment);
    const readAt = deps.verified.readAt(t);
    return claim !== undefined && (readAt === undefined || readAt < claim.expiredAt);
  });
  if (stale.length > 0) await deps.verified.reread(stale);
  const statuses = statusesFor(deps.verified, pipeline, targets);
  const resolutions = [
    ...expired
      .map((claim) => concludeClaim(claim, statuses[claim.environment] ?? []))
      .filter((r): r is ClaimResolution => r !== undefined),
    ...(failed ? arrivedFailures(pipeline, statuses) : []),
  ];
  if (resolutions.length === 0) return pipeline;
  const written = await deps.status.apply(pipeline, resolutionChange(resolutions, deps.now()));
  if (written.outcome === 'Gone' || written.outcome === 'Contended') return pipeline;
  if (written.outcome === 'Written') {
    const landed = resolutions.filter(
      (r) =>
        written.pipeline.status?.environments?.[r.environment]?.promotion?.resolution ===
        r.resolution,
    );
    logResolutions(deps, pipeline, landed);
  }
  return written.pipeline;
}

function messageOf(r: ClaimResolution): string {
  if (recordState(r.record) === 'Failed')
    return 'a failed attempt took effect: its targets run the revision';
  return r.resolution === 'Observed'
    ? 'claim past its deadline resolved: its targets run the revision'
    : 'claim past its deadline resolved as abandoned';
}

/** Whether some environment's record is a failure (which its targets may yet show took effect). */
function hasFailure(pipeline: Pipeline): boolean {
  return Object.values(pipeline.status?.environments ?? {}).some(
    (env) => env.promotion !== undefined && recordState(env.promotion) === 'Failed',
  );
}

function logResolutions(
  deps: ResolutionDeps,
  pipeline: Pipeline,
  resolutions: readonly ClaimResolution[],
): void {
  for (const r of resolutions) {
    deps.onResolved?.(r.resolution);
    deps.logger.info(
      {
        pipeline: pipelineIdOf(pipeline),
        environment: r.environment,
        revision: r.record.revision,
        attempt: r.record.attempt,
        claimedBy: r.record.claimedBy,
        resolution: r.resolution,
      },
      messageOf(r),
    );
  }
}
