/** [resync], wired: the periodic pass feeding the pipeline queue, under leader election. */
import type { PipelineCatalog } from '../catalog/catalog.js';
import { KubeLeaseStore } from '../kube/lease.js';
import { resyncLeadership } from '../leadership/leadership.js';
import { Resync } from '../resync/resync.js';
import type { ClusterAccess } from './cluster-access.js';
import type { PromotionLoop } from './loop.js';
import type { RecoveryCause } from './recovery.js';
import type { Runtime } from './runtime.js';

/**
 * [resync]: the periodic pass, confirming the promotions it finds due and feeding the same
 * pipeline queue, under leader election; taking the Lease, or a Lease call answering after
 * failed ones, calls `recover`.
 */
export function resyncLoop(
  rt: Runtime,
  catalog: PipelineCatalog,
  access: ClusterAccess,
  loop: Pick<PromotionLoop, 'pipelines' | 'confirmations'>,
  recover: (cause: RecoveryCause) => void,
) {
  const { config, logger, scheduler, random, metrics, calls } = rt;
  const resync = new Resync({
    ...config.resync,
    ...{ catalog, verified: access.verified, logger, scheduler, random },
    pipelines: loop.pipelines,
    confirm: (ids) => loop.confirmations.confirm(ids),
    refreshCredentials: async () => {
      await Promise.all([access.clusters.sync(), access.legacyKeys.refresh()]);
    },
    onReport: (report) => {
      metrics.observeResync(report);
    },
    onUnannounced: (changes) => {
      for (const { target } of changes) {
        metrics.observeUnannounced(target.key.cluster, target.key.kind);
      }
    },
  });
  metrics.resyncInterval.set(config.resync.intervalMs / 1000);
  // One series per replica, labelled with its shard, from the start (0 until it leads).
  const shard = { shard: config.sharding?.name ?? '' };
  metrics.resyncLeader.set(shard, 0);
  const leadership = resyncLeadership({
    settings: config.leaderElection,
    // A renewal still waiting past the renew deadline is useless: give up on it by then.
    store: new KubeLeaseStore(
      rt.management,
      calls.withTimeout(config.leaderElection.renewDeadlineMs),
    ),
    ...{ resync, scheduler, random, logger },
    gauge: {
      set: (value) => {
        metrics.resyncLeader.set(shard, value);
      },
    },
    onRecovery: recover,
  });
  return { resync, leadership };
}
