/**
 * The composition root: builds every stage of the data flow from a validated configuration and
 * the management cluster's KubeConfig, and wires them in order:
 * ingress -> auth -> hints -> catalog -> verify -> evaluate -> promote -> status, with the
 * resync feeding the same pipeline queue. Nothing here decides anything.
 */
import type { Gateway } from './gateway-api.js';
import { haltsByScope } from '../halts/halt-record.js';
import { PipelineCatalog } from '../catalog/catalog.js';
import { readinessOf } from '../ingress/ops.js';
import { pipelineId } from '../pipeline/id.js';
import { claimsPastDeadline } from '../promote/stuck-claims.js';
import { clusterAccess } from './cluster-access.js';
import { httpApp, listeners } from './http.js';
import { promotionLoop } from './loop.js';
import { recoveryRechecks } from './recovery.js';
import { resyncLoop } from './resync-loop.js';
import { runtimeOf, type GatewayOptions, type Runtime } from './runtime.js';
import { alertKnowledge, notifier, outboxCompletion, trainOutboxPolicy } from './notify.js';
import { pipelineWatch } from './watch.js';
import { CrdGuard } from './crd-check.js';
import { uiListener } from './ui.js';
import { trainKnowledge, trainLoop } from './trains.js';

export type { Gateway, GatewayStatus } from './gateway-api.js';
export type { GatewayOptions } from './runtime.js';

/** Builds a gateway; nothing runs until start() and listen(). */
export async function createGateway(options: GatewayOptions): Promise<Gateway> {
  const rt = runtimeOf(options);
  const catalog = new PipelineCatalog(rt.config);
  const crd = new CrdGuard(rt, undefined, options.crdFreshMs);
  const alerts = alertKnowledge(rt);
  const access = clusterAccess(rt, catalog, crd, outboxCompletion(rt, alerts));
  const trains = trainKnowledge(rt, catalog, access);
  const loop = promotionLoop(rt, catalog, { ...access, ...trains.loopAccess });
  const recover = recoveryRechecks(rt, loop);
  const { resync, leadership } = resyncLoop(rt, catalog, access, loop, recover);
  const { watcher, lifecycle } = pipelineWatch(rt, catalog, access, loop, recover);
  const outbox = trainOutboxPolicy(rt, alerts, catalog);
  const told = { events: access.writer, ...(outbox === undefined ? {} : { outbox }) };
  const trainPasses = trainLoop(rt, trains, loop, () => leadership.isLeader(), told);
  const sources = { catalog, trains: () => trains.book.all() };
  const notifications = notifier(rt, sources, () => leadership.isLeader(), alerts, access.status);
  const stops: (() => void)[] = [];
  const readiness = () =>
    readinessOf({
      pipelinesLoaded: watcher.synced(),
      notLoadedBecause: watcher.notLoadedBecause(),
      resyncPasses: resync.completedPasses,
      statusWritesHeld: crd.held()?.message,
    });
  const { hints, pipelines, reconciler, statusWrites } = loop;
  bindMetricSources(rt, catalog, hints, readiness);
  const http = listeners(rt, await httpApp(rt, catalog, access, { loop, trains }, readiness));
  const ui = uiListener(rt, catalog, reconciler, loop.previews, trains.book);
  return {
    start: async () => {
      logShard(rt);
      await crd.start();
      // A member of a train must meet its gate from its first check on.
      await trains.refresh();
      await watcher.start();
      await access.clusters.sync();
      lifecycle.started = true;
      leadership.start();
      stops.push(alerts.start(), trainPasses.start());
      notifications.start();
    },
    listen: async (at) => {
      const address = await http.listen(at);
      await ui.listen(at?.host ?? rt.config.server.host);
      return address;
    },
    metricsAddress: http.metricsAddress,
    uiAddress: () => ui.address(),
    idle: async () => {
      // A hinted read queues re-checks, and a re-check can requeue: settle a few rounds.
      for (let i = 0; i < 5; i++)
        await Promise.all([hints.idle(), pipelines.idle(), statusWrites.idle()]);
    },
    close: async () => {
      // Deliveries in flight end (and are recorded) before the Lease is released.
      crd.stop();
      for (const stop of stops.splice(0)) stop();
      await notifications.stop();
      await leadership.stop();
      await watcher.stop();
      await Promise.all([http.close(), ui.close()]);
      await Promise.all([hints.stop(), pipelines.stop()]);
      await statusWrites.stop();
    },
    resync: () => resync.runOnce(),
    notify: () => notifications.tickAndWait(),
    recheckCrd: () => crd.recheck(),
    view: (ref) => reconciler.view(pipelineId(ref)),
    status: () => ({
      ...readiness(),
      resyncPasses: resync.completedPasses,
      leader: leadership.isLeader(),
      identity: leadership.identity,
      shard: rt.config.sharding?.name,
      pipelinesLoaded: catalog.size,
      referencedObjects: catalog.referencedObjects,
      hints: hints.stats(),
      pipelines: pipelines.stats(),
      evaluated: reconciler.evaluated,
      statusWrites: statusWrites.stats(),
    }),
  };
}

/** Binds the scrape-time gauges to the catalog, the hint queue and the readiness check. */
function bindMetricSources(
  rt: Runtime,
  catalog: PipelineCatalog,
  hints: { stats(): { depth: number } },
  readiness: () => { ready: boolean },
): void {
  rt.metrics.bindSources({
    hintQueueDepth: () => hints.stats().depth,
    ready: () => readiness().ready,
    pipelines: () => catalog.size,
    referencedObjects: () => catalog.referencedObjects,
    halts: () => haltsByScope(catalog.haltLists(), rt.now()),
    claimsPastDeadline: () =>
      claimsPastDeadline(catalog.statuses(), rt.config.promotion.retry, rt.now()),
  });
}

/** At start, one line naming the shard a sharded gateway serves and its resync Lease. */
function logShard(rt: Runtime): void {
  const { sharding, leaderElection } = rt.config;
  if (sharding !== undefined)
    rt.logger.info(
      { shard: sharding.name, pipelineSelector: sharding.pipelineSelector },
      `serving shard ${sharding.name}: the Pipelines its selector matches, resync Lease ${leaderElection.name}`,
    );
}
