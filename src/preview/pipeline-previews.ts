/**
 * The previews of a Pipeline's environments, as the API, the CLI, the web view and the
 * approval door ask for them: the environment's pending revision from the latest decision, its
 * targets' verified statuses from this replica's reads, then Previewer. It also remembers the
 * latest digest seen per (Pipeline, environment, revision), bounded, for the evaluator's input.
 */
import type { CatalogTarget } from '../catalog/targets.js';
import type { EnvironmentDecision, TargetStatus } from '../evaluate/decisions.js';
import type { KnownDigest } from '../evaluate/gate.js';
import { pipelineIdOf, type PipelineId } from '../pipeline/id.js';
import type { Pipeline } from '../pipeline/pipeline-resource.js';
import { PreviewCache, previewKey } from './preview-cache.js';
import { pendingOf, type Preview, type Previewer } from './previewer.js';

/** A preview, or why there is none: no such Pipeline or environment, not evaluated, nothing pending. */
export type PreviewAnswer =
  | { ok: true; preview: Preview }
  | { ok: false; reason: 'NotFound' | 'NotEvaluated' | 'NothingPending' };

/** What the previews read: the Pipelines, their targets and statuses, the latest decisions. */
export interface PipelinePreviewDeps {
  pipeline: (id: PipelineId) => Pipeline | undefined;
  targetsOf: (id: PipelineId) => readonly CatalogTarget[];
  status: (target: CatalogTarget) => TargetStatus | undefined;
  /** The latest decisions of the Pipeline; undefined when it has not been evaluated. */
  decisions: (id: PipelineId) => readonly EnvironmentDecision[] | undefined;
  previewer: Pick<Previewer, 'preview'>;
  /** The clock a learnt digest is stamped with (ms). */
  now: () => number;
}

/** Serves previews; see the module comment. */
export class PipelinePreviews {
  /** The latest digest per (Pipeline, environment, revision), bounded like the previews. */
  private readonly digests = new PreviewCache<KnownDigest>();

  constructor(private readonly deps: PipelinePreviewDeps) {}

  /** The preview of `environment`'s pending promotion, as the latest decision names it. */
  async previewOf(id: PipelineId, environment: string): Promise<PreviewAnswer> {
    const pipeline = this.deps.pipeline(id);
    if (!pipeline?.spec.environments.some((e) => e.name === environment))
      return { ok: false, reason: 'NotFound' };
    const decisions = this.deps.decisions(id);
    if (decisions === undefined) return { ok: false, reason: 'NotEvaluated' };
    const pending = pendingOf(decisions.find((d) => d.environment === environment));
    if (pending === undefined) return { ok: false, reason: 'NothingPending' };
    const preview = await this.at(pipeline, environment, pending);
    return { ok: true, preview };
  }

  /**
   * The preview of promoting `revision` to `environment` of `pipeline` now (the attempt as
   * given), whatever the latest decision says: what a promotion or an approval is judged on.
   */
  async at(
    pipeline: Pipeline,
    environment: string,
    pending: { revision: string; attempt: number; redelivery?: number },
  ): Promise<Preview> {
    const id = pipelineIdOf(pipeline);
    const targets = this.deps.targetsOf(id).filter((t) => t.environment === environment);
    // Stamped before the forge is asked: what it answers is at least this recent.
    const asked = this.deps.now();
    const statuses: (TargetStatus | undefined)[] = [];
    for (const t of targets) statuses[t.index] = this.deps.status(t);
    const preview = await this.deps.previewer.preview({
      ...{ pipeline, environment, pending, targets, statuses },
    });
    if (preview.change.kind !== 'unavailable')
      this.digests.set(previewKey([id, environment, pending.revision]), {
        digest: preview.digest,
        at: asked,
      });
    return preview;
  }

  /** The latest digest this replica computed for the revision and when, or undefined when none. */
  latestDigest(id: PipelineId, environment: string, revision: string): KnownDigest | undefined {
    return this.digests.get(previewKey([id, environment, revision]));
  }
}
