/**
 * What the gateway currently knows of one Pipeline, as GET /v1/pipelines serves it: the
 * verified state of every target, each environment's decision and reason, and its policy gates.
 */
import type { CatalogTarget } from '../catalog/targets.js';
import type { EnvironmentDecision, TargetStatus } from '../evaluate/decisions.js';
import type { PolicyView } from '../evaluate/policy-view.js';
import { pipelineRef, type PipelineId } from '../pipeline/id.js';
import { rfc3339 } from '../time/kube-time.js';

/** The verified view of one Pipeline, as JSON. */
export interface PipelineView {
  namespace: string;
  name: string;
  /** Verified target state per environment name, in spec order. */
  targets: Readonly<Record<string, readonly TargetStatus[]>>;
  /** The latest evaluation, one decision per environment in spec order. */
  decisions: readonly EnvironmentDecision[];
  /**
   * Every policy gate of each environment that has one, from the same input as `decisions`
   * (evaluate/policy-view.ts); absent when no environment has one.
   */
  policy?: Readonly<Record<string, PolicyView>>;
  /** When the view was last evaluated (RFC 3339), if ever. */
  evaluatedAt?: string;
  [extra: string]: unknown;
}

/** Where a target sits in its Pipeline's spec. */
type Placed = Pick<CatalogTarget, 'environment' | 'index'>;

/**
 * What the reconciler keeps of a view between checks: the decisions and the time as a number,
 * and no statuses: viewOf builds the view when asked, its statuses from the verify stage's
 * latest reads (which a check follows at once when they change). Why: a view is kept for every
 * Pipeline, and a record of per-environment arrays plus an RFC 3339 string cost about 40 bytes
 * per target more than this, the statuses as objects another 75.
 */
export interface KeptView<T extends Placed = Placed> {
  /** The names of the spec's environments the view was made for (the catalog's list, shared). */
  readonly environments: readonly string[];
  /** The catalog's targets of the Pipeline (shared). */
  readonly targets: readonly T[];
  readonly decisions: readonly EnvironmentDecision[];
  readonly policy?: Readonly<Record<string, PolicyView>> | undefined;
  /** Milliseconds since the epoch. */
  readonly evaluatedAt: number;
}

/**
 * The view of Pipeline `id` that `kept` holds, as GET /v1/pipelines serves it, each target's
 * status from `statusOf` (undefined: not read yet, left out).
 */
export function viewOf<T extends Placed>(
  id: PipelineId,
  kept: KeptView<T>,
  statusOf: (target: T) => TargetStatus | undefined,
): PipelineView {
  const { namespace, name } = pipelineRef(id);
  const targets: Record<string, TargetStatus[]> = {};
  for (const name of kept.environments) targets[name] = [];
  for (const t of kept.targets) {
    const status = statusOf(t);
    if (status !== undefined) (targets[t.environment] ??= [])[t.index] = status;
  }
  return {
    namespace,
    name,
    targets,
    decisions: kept.decisions,
    ...(kept.policy === undefined ? {} : { policy: kept.policy }),
    evaluatedAt: rfc3339(kept.evaluatedAt),
  };
}
