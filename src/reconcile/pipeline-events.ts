/**
 * What the Pipeline watch turns into: the catalog updated, and the Pipeline re-checked. A
 * Pipeline whose references changed is read in full, after any cluster it newly names has been
 * resolved; one that does not match the CRD schema is dropped with a warning, never evaluated.
 */
import type { LegacyKeyStore } from '../auth/legacy-keys.js';
import type { PipelineCatalog } from '../catalog/catalog.js';
import type { PipelineTrigger } from '../hints/sinks.js';
import type { KubeObject } from '../kube/ports.js';
import type { PipelineEventHandler } from '../kube/pipeline-watch.js';
import type { GatewayLogger } from '../log.js';
import { pipelineId, type PipelineId } from '../pipeline/id.js';
import { checkPipeline } from '../kube/pipeline-check.js';

/** What the handler needs. */
export interface PipelineEventsDeps {
  catalog: PipelineCatalog;
  /** Marks a Pipeline for a full read on its next check. */
  requireFullRead: (id: PipelineId) => void;
  /** Drops what the checks kept for a Pipeline no longer loaded (its view, waits). */
  forget: (id: PipelineId) => void;
  /** Resolves the clusters the catalog now names. */
  syncClusters: () => Promise<void>;
  pipelines: PipelineTrigger;
  logger: GatewayLogger;
  /** False until start-up has resolved clusters: before that, the first resync checks all. */
  started: () => boolean;
  /** The legacy webhook's keys, read ahead for every Pipeline that names a Secret. */
  legacyKeys: Pick<LegacyKeyStore, 'track' | 'forget'>;
  /** The watch is watching again after failing: what waited on the management API can go on. */
  resumed: () => void;
}

/** The watch handler that keeps the catalog and the re-checks in step with the API server. */
export function pipelineEvents(deps: PipelineEventsDeps): PipelineEventHandler {
  const { catalog, logger } = deps;
  let lastProblem: string | undefined;
  return {
    upsert: (object: KubeObject) => {
      const checked = checkPipeline(object);
      const id = pipelineId({
        namespace: object.metadata.namespace ?? '',
        name: object.metadata.name,
      });
      if (!checked.ok) {
        logger.warn({ pipeline: id, problem: checked.problem }, 'pipeline ignored: invalid');
        catalog.remove(id);
        deps.legacyKeys.forget(id);
        deps.forget(id);
        return;
      }
      void deps.legacyKeys.track(id, checked.pipeline);
      const changed = catalog.upsert(checked.pipeline);
      // Before start-up completes the start-up pass LISTs every target: marking the Pipelines
      // loaded now for a full read would GET each target again right after.
      if (!deps.started()) return;
      if (changed) deps.requireFullRead(id);
      const request = () => deps.pipelines.requestPipeline(id, 'spec-change');
      // New references may name a new cluster: resolve it first, or the check reads nothing.
      if (changed) void deps.syncClusters().then(request, request);
      else request();
    },
    remove: (namespace, name) => {
      const id = pipelineId({ namespace, name });
      catalog.remove(id);
      deps.legacyKeys.forget(id);
      // Deleted, or relabelled out of this shard's selector: nothing checks it any more.
      deps.forget(id);
    },
    error: (message, retryInMs) => {
      // A failing watch restarts every few seconds: the same failure again is only debug.
      const level = message === lastProblem ? 'debug' : 'warn';
      lastProblem = message;
      logger[level]({ retryInMs }, `${message}; retrying`);
    },
    resumed: () => {
      lastProblem = undefined;
      logger.info('the Pipeline watch is watching again');
      deps.resumed();
    },
  };
}
