import type { CatalogTarget } from '../catalog/targets.js';
import { evaluate } from '../evaluate/evaluate.js';
import type { Evaluation, RetryPolicy, TargetStatus } from '../evaluate/types.js';
import type { Pipeline } from '../pipeline/types.js';
import type { VerifiedTargets } from '../verify/verified-targets.js';

/**
 * Stored statuses per environment, aligned with the spec's targets. A target never read is
 * Unknown (NotVerified), so it blocks decisions like any unreadable one.
 */
export function statusesFor(
  verified: VerifiedTargets,
  pipeline: Pipeline,
  targets: readonly CatalogTarget[],
): Record<string, TargetStatus[]> {
  const out: Record<string, TargetStatus[]> = {};
  for (const env of pipeline.spec.environments) out[env.name] = [];
  for (const t of targets) {
    (out[t.environment] ??= [])[t.index] = verified.get(t.key)?.status ?? notVerified(t);
  }
  return out;
}

/** Runs the pure evaluator on a Pipeline's spec and stored promotion records. */
export function evaluatePipeline(
  pipeline: Pipeline,
  targets: Record<string, TargetStatus[]>,
  policy: RetryPolicy,
  now: number,
): Evaluation {
  const records = Object.fromEntries(
    pipeline.spec.environments.map((e) => [
      e.name,
      pipeline.status?.environments?.[e.name]?.promotion,
    ]),
  );
  return evaluate({ spec: pipeline.spec, targets, records, policy, now });
}

function notVerified(t: CatalogTarget): TargetStatus {
  return {
    location: t.location,
    health: 'Unknown',
    reason: 'NotVerified',
    message: 'the target has not been read yet',
  };
}
