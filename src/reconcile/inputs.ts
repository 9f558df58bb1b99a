import { evaluate } from '../evaluate/evaluate.js';
import type { Evaluation, RetryPolicy, TargetStatus } from '../evaluate/types.js';
import type { IndexedTarget } from '../index/pipeline-index.js';
import type { Pipeline } from '../pipeline/types.js';
import type { TargetStore } from '../verify/target-store.js';

/**
 * Stored statuses per environment, aligned with the spec's targets. A target never read is
 * Unknown (NotVerified), so it blocks decisions like any unreadable one.
 */
export function statusesFor(
  store: TargetStore,
  pipeline: Pipeline,
  targets: readonly IndexedTarget[],
): Record<string, TargetStatus[]> {
  const out: Record<string, TargetStatus[]> = {};
  for (const env of pipeline.spec.environments) out[env.name] = [];
  for (const t of targets) {
    (out[t.environment] ??= [])[t.index] = store.get(t.key)?.status ?? notVerified(t);
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

function notVerified(t: IndexedTarget): TargetStatus {
  return {
    location: t.location,
    health: 'Unknown',
    reason: 'NotVerified',
    message: 'the target has not been read yet',
  };
}
