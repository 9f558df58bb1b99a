/**
 * The policy view (evaluate/policy-view.ts) of a Pipeline as the API server stores it, for
 * `promotion-gateway status`: the evaluator's input is built the gateway's way from the
 * Pipeline's spec and status (its target records, halts, stored healthy-since, its own
 * windows) at the reader's clock, and evaluated by the gateway's own PipelineEvaluator. What only a
 * running gateway knows is left out: the checks' results (kept in its memory: `GET
 * /v1/pipelines` shows them), the operator's windows, floors and break-glass policy (its
 * configuration). Pure.
 */
import type { TargetStatus } from '../evaluate/decisions.js';
import { policyViewsOf, type PolicyView } from '../evaluate/policy-view.js';
import type { Pipeline } from '../pipeline/pipeline-resource.js';
import { PipelineEvaluator } from '../evaluation/pipeline-evaluator.js';

/** Not used by the view; the evaluator's input needs one. */
const NO_RETRIES = { maxAttempts: 1, backoffBaseMs: 0, backoffMaxMs: 0, claimTimeoutMs: 0 };

/**
 * The evaluator of the `status` command at the reader's clock `now` (ms): the gateway's
 * PipelineEvaluator with none of a gateway's configuration (no floors, windows or checks).
 */
export function storedEvaluator(now: number): PipelineEvaluator {
  return new PipelineEvaluator({ policy: NO_RETRIES, floors: {} }, () => now);
}

/**
 * Each environment's policy view from the stored Pipeline, explained from the input `evaluator`
 * decided on (storedEvaluator), without check results (each check shows only its name and
 * kind); undefined when no environment has a policy gate.
 */
export function storedPolicyOf(
  pipeline: Pipeline,
  evaluator: Pick<PipelineEvaluator, 'evaluate'>,
): Readonly<Record<string, PolicyView>> | undefined {
  const { input } = evaluator.evaluate(pipeline, storedTargets(pipeline));
  const views = policyViewsOf(input);
  if (views === undefined) return undefined;
  return Object.fromEntries(
    Object.entries(views).map(([env, view]) => [env, withoutCheckResults(view)]),
  );
}

/** The targets as their stored records show them, aligned with the spec; unrecorded = Unknown. */
export function storedTargets(pipeline: Pipeline): Record<string, TargetStatus[]> {
  const out: Record<string, TargetStatus[]> = {};
  for (const env of pipeline.spec.environments) {
    const records = pipeline.status?.environments?.[env.name]?.targets ?? [];
    out[env.name] = env.targets.map((target, i): TargetStatus => {
      const location = { cluster: target.clusterRef?.name ?? '', namespace: target.namespace };
      const record = records[i];
      if (record === undefined)
        return { location, health: 'Unknown', reason: 'NotVerified', message: 'not verified yet' };
      return {
        location,
        health: record.ready ? 'Healthy' : 'Unhealthy',
        ...(record.revision === undefined ? {} : { revision: record.revision }),
        reason: record.ready ? 'Ready' : 'NotReady',
        message: record.error ?? '',
      };
    });
  }
  return out;
}

/** The status keeps no check results: a check is named, and never said to hold. */
function withoutCheckResults(view: PolicyView): PolicyView {
  const { checks, holding } = view;
  if (checks === undefined) return view;
  return {
    ...view,
    ...(holding === undefined ? {} : { holding: holding.filter((p) => p !== 'checks') }),
    checks: checks.map(({ name, kind }) => ({ name, kind })),
  };
}
