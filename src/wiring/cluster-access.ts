/** [verify]'s side of Kubernetes, wired: cluster readers, verified state, the status writer. */
import type { PipelineCatalog } from '../catalog/catalog.js';
import { wantedClusters } from '../catalog/wanted-clusters.js';
import { LegacyKeyStore } from '../auth/legacy-keys.js';
import { ClusterRegistry } from '../kube/clusters.js';
import { KubePipelineWriter } from '../kube/pipeline-writer.js';
import { StatusWriter, type StatusWriterOptions } from '../kube/status-writer.js';
import { KubeObjectReader } from '../kube/reader.js';
import { secretKeyReader } from '../kube/secret-reader.js';
import { Verifier } from '../verify/verifier.js';
import { VerifiedTargets } from '../verify/verified-targets.js';
import type { CrdGuard } from './crd-check.js';
import type { Runtime } from './runtime.js';

/**
 * [verify]'s side of Kubernetes: one reader per cluster, verified state, and status writes,
 * which reject with the CRD guard's error while it holds them (see CrdGuard) and are completed
 * by `complete` (the events they owe: wiring/notify.ts's outboxCompletion).
 */
export function clusterAccess(
  rt: Runtime,
  catalog: PipelineCatalog,
  crd: Pick<CrdGuard, 'beforeWrite' | 'recheck'>,
  complete?: StatusWriterOptions['complete'],
) {
  const { config, calls, metrics, now } = rt;
  const clusters = new ClusterRegistry({
    managementName: config.management.name,
    managementConfig: rt.management,
    makeReader: (kubeConfig) => new KubeObjectReader(kubeConfig, calls),
    calls,
    wanted: () => wantedClusters(config, catalog),
    now,
    onServers: (cluster, servers) => {
      rt.apiServers.set(cluster, servers);
    },
  });
  const verifier = new Verifier(clusters, (cluster, _verb, result) => {
    metrics.observeRead(cluster, result);
    clusters.noteReadResult(result);
  });
  const writer = new KubePipelineWriter(rt.management, calls, config.promotion.instanceId);
  const status = new StatusWriter(writer, {
    scheduler: rt.scheduler,
    random: rt.random,
    held: crd.beforeWrite,
    onAttempt: (result) => {
      metrics.statusWrites.inc({ result });
    },
    ...(complete === undefined ? {} : { complete }),
  });
  const legacyKeys = new LegacyKeyStore(secretKeyReader(rt.management, calls));
  const verified = new VerifiedTargets(verifier, now);
  return { clusters, verified, writer, status, legacyKeys, crd };
}

/** What clusterAccess builds. */
export type ClusterAccess = ReturnType<typeof clusterAccess>;
