/** The Pipeline watch, wired: it feeds the catalog and asks the loop for re-checks. */
import type { PipelineCatalog } from '../catalog/catalog.js';
import { versionListWatches } from '../kube/version-list-watch.js';
import { PipelineWatcher } from '../kube/pipeline-watch.js';
import { pipelineEvents } from '../reconcile/pipeline-events.js';
import type { ClusterAccess } from './cluster-access.js';
import type { PromotionLoop } from './loop.js';
import type { RecoveryCause } from './recovery.js';
import type { Runtime } from './runtime.js';

/**
 * The Pipeline watch, feeding the catalog; re-checks start only once start() has run. A watch
 * that connects again after failing calls `recover`.
 */
export function pipelineWatch(
  rt: Runtime,
  catalog: PipelineCatalog,
  access: ClusterAccess,
  loop: PromotionLoop,
  recover: (cause: RecoveryCause) => void,
) {
  const lifecycle = { started: false };
  const handler = pipelineEvents({
    catalog,
    requireFullRead: (id) => {
      loop.reconciler.requireFullRead(id);
    },
    forget: (id) => {
      loop.reconciler.forget(id);
    },
    syncClusters: () => access.clusters.sync(),
    pipelines: loop.pipelines,
    logger: rt.logger,
    started: () => lifecycle.started,
    legacyKeys: access.legacyKeys,
    resumed: () => {
      recover('watch-resumed');
    },
  });
  const { management, config, calls, scheduler } = rt;
  const watcher = new PipelineWatcher(management, config.pipelineNamespaces, handler, calls, {
    scheduler,
    informers: versionListWatches(management),
    labelSelector: config.sharding?.pipelineSelector,
  });
  return { watcher, lifecycle };
}
