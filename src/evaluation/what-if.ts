/**
 * What-if: the fleet's decisions now (or at a chosen instant) under the policy it has and under a
 * proposed one (what-if-policy.ts), per Pipeline and environment, with nothing written. Both sides
 * go through PipelineEvaluator on the same reads and records, so the current side is the live
 * decision and the proposed side cannot disagree with what the gateway would decide under it.
 */
import type {
  EnvironmentDecision,
  EnvironmentOutcome,
  TargetStatus,
} from '../evaluate/decisions.js';
import type { Pipeline } from '../pipeline/pipeline-resource.js';
import type { PipelineEvaluator } from './pipeline-evaluator.js';
import { proposedPipeline, type WhatIfPolicy } from './what-if-policy.js';

/** One side of an environment's comparison. */
export interface WhatIfDecision {
  decision: EnvironmentOutcome;
  reason: string;
  message: string;
  revision?: string;
}

/** One environment: its decision under each policy, and whether they differ. */
export interface WhatIfEnvironment {
  environment: string;
  current: WhatIfDecision;
  proposed: WhatIfDecision;
  /** The decision or its reason differs (a message that only counts time differently does not). */
  changed: boolean;
}

/** One Pipeline's environments, in spec order. */
export interface WhatIfPipeline {
  namespace: string;
  name: string;
  environments: WhatIfEnvironment[];
}

/** A Pipeline and the target statuses it is decided on (aligned as statusesFor does). */
export interface WhatIfSubject {
  pipeline: Pipeline;
  targets: Record<string, TargetStatus[]>;
}

/** Every Pipeline asked about, and how many environments changed in all. */
export interface WhatIfAnswer {
  pipelines: WhatIfPipeline[];
  changed: number;
}

/**
 * Decides each subject under `evaluator` (the live settings, already at the instant asked) and
 * under `policy`, whose fleet windows replace the evaluator's when it declares any.
 */
export function whatIf(
  subjects: Iterable<WhatIfSubject>,
  evaluator: PipelineEvaluator,
  policy: WhatIfPolicy,
  now: number,
): WhatIfAnswer {
  const live = evaluator.at(now);
  const proposing = evaluator.at(now, policy.windows);
  const pipelines: WhatIfPipeline[] = [];
  let changed = 0;
  for (const { pipeline, targets } of subjects) {
    const current = live.evaluate(pipeline, targets).decisions;
    const proposed = proposing.evaluate(proposedPipeline(pipeline, policy), targets).decisions;
    const environments = current.map((decision, i) => compared(decision, proposed[i]));
    changed += environments.filter((e) => e.changed).length;
    const { namespace, name } = pipeline.metadata;
    pipelines.push({ namespace, name, environments });
  }
  return { pipelines, changed };
}

function compared(
  current: EnvironmentDecision,
  proposed: EnvironmentDecision | undefined,
): WhatIfEnvironment {
  const now = sideOf(current);
  const then = proposed === undefined ? now : sideOf(proposed);
  return {
    environment: current.environment,
    current: now,
    proposed: then,
    changed: now.decision !== then.decision || now.reason !== then.reason,
  };
}

function sideOf(d: EnvironmentDecision): WhatIfDecision {
  return {
    decision: d.outcome,
    reason: d.reason,
    message: d.message,
    ...(d.revision === undefined ? {} : { revision: d.revision }),
  };
}
