/**
 * What a Pipeline's verified view is computed from when its status write starts: the catalog's
 * latest object (or the newer one a check wrote), this replica's latest reads of its targets, and
 * the one evaluator's decision on them. Nothing of a check waits in the status queue but its id.
 */
import type { PipelineCatalog } from '../catalog/catalog.js';
import type { PipelineId } from '../pipeline/id.js';
import type { Pipeline } from '../pipeline/pipeline-resource.js';
import type { ViewInputs } from '../status/view-change.js';
import type { ViewInputsSource } from '../status/view-sync.js';
import type { VerifiedTargets } from '../verify/verified-targets.js';
import { announcementsOf, observedTimes, statusesFor } from './evaluation-input.js';
import type { PipelineEvaluator } from './pipeline-evaluator.js';
import { streaksOf } from './soak-input.js';

/** What the view's inputs are read from. */
export interface ViewInputsDeps {
  catalog: Pick<PipelineCatalog, 'head' | 'get' | 'targetsOf'>;
  verified: VerifiedTargets;
  evaluator: Pick<PipelineEvaluator, 'evaluate'>;
}

/** The status view's inputs (ViewInputsSource), from the catalog and the latest reads. */
export class ViewInputsReader implements ViewInputsSource {
  constructor(private readonly deps: ViewInputsDeps) {}

  /**
   * The view to write for the Pipeline, computed from the latest reads when its status write
   * starts (status/status-queue.ts), on `newer` (an object a check wrote, which the catalog may
   * not hold yet) or else the catalog's latest. Undefined when the Pipeline is no longer loaded
   * or its spec moved on past `newer` (the check of the new spec writes its own view).
   */
  viewInputs(id: PipelineId, newer?: Pipeline): ViewInputs | undefined {
    const { catalog, verified } = this.deps;
    const held = catalog.head(id);
    if (held === undefined) return undefined;
    if (newer !== undefined && newer.metadata.generation !== held.metadata.generation)
      return undefined;
    const pipeline = newer ?? catalog.get(id);
    if (pipeline === undefined) return undefined;
    const targets = catalog.targetsOf(id);
    const statuses = statusesFor(verified, pipeline, targets);
    return {
      pipeline,
      targets: statuses,
      observedAt: observedTimes(verified, pipeline, targets),
      announcements: announcementsOf(verified, pipeline, targets),
      streaks: streaksOf(verified, pipeline, targets),
      // The evaluation of the records and reads the view is written with.
      evaluation: this.deps.evaluator.evaluate(pipeline, statuses),
    };
  }
}
