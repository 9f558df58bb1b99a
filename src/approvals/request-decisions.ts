/**
 * The decisions one authorization request is judged on, from the one PipelineEvaluator: each
 * stored Pipeline the request sees is evaluated once, however many steps judge it (the check
 * before the write, the write's own re-check of the object it applies to, a refusal's message).
 */
import type { PipelineCatalog } from '../catalog/catalog.js';
import type { EnvironmentDecision } from '../evaluate/decisions.js';
import { statusesFor } from '../evaluation/evaluation-input.js';
import type { PipelineEvaluator } from '../evaluation/pipeline-evaluator.js';
import type { PipelineId } from '../pipeline/id.js';
import type { Pipeline } from '../pipeline/pipeline-resource.js';
import type { VerifiedTargets } from '../verify/verified-targets.js';

/** The environment's decision on a stored Pipeline; undefined when the spec has no such one. */
export type Decide = (pipeline: Pipeline) => EnvironmentDecision | undefined;

/** What the decisions are evaluated with. */
export interface RequestDecisionDeps {
  evaluator: Pick<PipelineEvaluator, 'evaluate'>;
  catalog: Pick<PipelineCatalog, 'targetsOf'>;
  verified: Pick<VerifiedTargets, 'status'>;
}

/**
 * `environment`'s decision on each object given of Pipeline `id`, on the latest reads of its
 * targets: one evaluation per object, for the life of one request.
 */
export function requestDecisions(
  deps: RequestDecisionDeps,
  id: PipelineId,
  environment: string,
): Decide {
  const decided = new Map<Pipeline, EnvironmentDecision | undefined>();
  return (pipeline) => {
    if (decided.has(pipeline)) return decided.get(pipeline);
    const statuses = statusesFor(deps.verified, pipeline, deps.catalog.targetsOf(id));
    const evaluation = deps.evaluator.evaluate(pipeline, statuses);
    const decision = evaluation.decisions.find((d) => d.environment === environment);
    decided.set(pipeline, decision);
    return decision;
  };
}
