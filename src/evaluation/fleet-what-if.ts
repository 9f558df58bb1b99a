/**
 * What-if over the Pipelines a gateway holds: each one's latest state from the catalog and this
 * replica's reads of its targets (statusesFor), decided by the gateway's own PipelineEvaluator
 * under the current and a proposed policy (what-if.ts). Reads nothing from a cluster, writes nothing.
 */
import type { PipelineCatalog } from '../catalog/catalog.js';
import { pipelineIdOf } from '../pipeline/id.js';
import type { VerifiedTargets } from '../verify/verified-targets.js';
import { statusesFor } from './evaluation-input.js';
import type { PipelineEvaluator } from './pipeline-evaluator.js';
import { whatIf, type WhatIfAnswer, type WhatIfSubject } from './what-if.js';
import type { WhatIfPolicy } from './what-if-policy.js';

/** What a fleet what-if reads: the catalog, the verified reads, the live evaluator. */
export interface FleetWhatIfDeps {
  catalog: Pick<PipelineCatalog, 'all' | 'targetsOf'>;
  verified: Pick<VerifiedTargets, 'status'>;
  evaluator: PipelineEvaluator;
}

/**
 * The answer for the held Pipelines `covers` admits (by namespace and name), at `now` (ms),
 * in id order.
 */
export function fleetWhatIf(
  deps: FleetWhatIfDeps,
  policy: WhatIfPolicy,
  covers: (namespace: string, name: string) => boolean,
  now: number,
): WhatIfAnswer {
  const { catalog, verified, evaluator } = deps;
  const subjects = function* (): Generator<WhatIfSubject> {
    for (const pipeline of catalog.all()) {
      const { namespace, name } = pipeline.metadata;
      if (!covers(namespace, name)) continue;
      const targets = catalog.targetsOf(pipelineIdOf(pipeline));
      yield { pipeline, targets: statusesFor(verified, pipeline, targets) };
    }
  };
  return whatIf(subjects(), evaluator, policy, now);
}
