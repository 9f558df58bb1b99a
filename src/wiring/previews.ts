/** [promote] and [preview], wired: one choice of strategy, and its previews over this replica's reads. */
import type { PipelineCatalog } from '../catalog/catalog.js';
import type { EnvironmentDecision } from '../evaluate/decisions.js';
import type { PipelineId } from '../pipeline/id.js';
import type { Pipeline } from '../pipeline/pipeline-resource.js';
import type { PromotionStrategy } from '../promote/strategies/strategy.js';
import { PipelinePreviews } from '../preview/pipeline-previews.js';
import { Previewer } from '../preview/previewer.js';
import type { ClusterAccess } from './cluster-access.js';
import type { Runtime } from './runtime.js';
import { strategyFor } from '../promote/strategies/select.js';
import type { PullRequestPorts } from '../promote/strategies/pull-request/pull-request-strategy.js';
import { WaitPreviews } from '../status/wait-previews.js';

/**
 * The previews: `strategies` as the reconciler gets them (so a preview is made by the code that
 * promotes), each target's app object read with the gateway's own credentials for its source,
 * and `decisions` for what is pending.
 */
export function pipelinePreviews(
  catalog: PipelineCatalog,
  access: Pick<ClusterAccess, 'clusters' | 'verified'>,
  strategies: (pipeline: Pipeline, environment: string) => PromotionStrategy | undefined,
  decisions: (id: PipelineId) => readonly EnvironmentDecision[] | undefined,
  now: () => number,
): PipelinePreviews {
  const previewer = new Previewer({
    strategyFor: strategies,
    readObject: async (target) => {
      const reader = access.clusters.reader(target.key.cluster);
      if (reader === undefined)
        return { ok: false, reason: 'Unavailable', message: 'no credentials for the cluster' };
      return reader.get(target.ref);
    },
  });
  return new PipelinePreviews({
    pipeline: (id) => catalog.get(id),
    targetsOf: (id) => catalog.targetsOf(id),
    status: (target) => access.verified.status(target),
    decisions,
    previewer,
    now,
  });
}

/** One choice of strategy for promoting and for previewing: what is shown is what runs. */
function strategiesOf(rt: Runtime, writer: ClusterAccess['writer'], pullRequest: PullRequestPorts) {
  const { webhooks } = rt.config.promotion;
  return (pipeline: Pipeline, env: string) =>
    strategyFor(pipeline.spec, env, {
      ...{ writer, webhooks, fetch: rt.fetch, now: rt.now, pullRequest },
      callTimeoutMs: rt.calls.timeoutMs,
    });
}

/**
 * The strategies the reconciler promotes with and the previews made with the very same ones,
 * the latter over the latest `decisions`.
 */
export function strategyDoors(
  rt: Runtime,
  catalog: PipelineCatalog,
  access: ClusterAccess,
  pullRequest: PullRequestPorts,
  decisions: (id: PipelineId) => readonly EnvironmentDecision[] | undefined,
) {
  const strategies = strategiesOf(rt, access.writer, pullRequest);
  return { strategies, previews: pipelinePreviews(catalog, access, strategies, decisions, rt.now) };
}

/** The longest summary a wait records (the status's bound). */
const MAX_WAIT_SUMMARY = 512;

/**
 * The previews waits for an approval are recorded with: the pending change as the previews
 * make it; none when it cannot be known now (a forge down).
 */
export function waitPreviews(rt: Runtime, previews: Pick<PipelinePreviews, 'at'>): WaitPreviews {
  return new WaitPreviews(
    {
      previewOf: async (pipeline, { environment, revision, attempt }) => {
        const preview = await previews.at(pipeline, environment, { revision, attempt });
        if (preview.change.kind === 'unavailable') return undefined;
        const summary = preview.summary;
        return {
          digest: preview.digest,
          summary: summary.length <= MAX_WAIT_SUMMARY ? summary : `${summary.slice(0, 511)}…`,
        };
      },
    },
    rt.scheduler,
    rt.config.notifications.previewWaitMs,
  );
}
