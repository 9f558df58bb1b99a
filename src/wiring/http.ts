/**
 * The composition root's HTTP side: the fastify app over the queues, the verified views and
 * the authorization doors (see gateway.ts for the data flow it feeds).
 */
import type { FastifyInstance } from 'fastify';
import { buildApp, buildMetricsApp } from '../ingress/http-app.js';
import { Principals } from '../auth/principals.js';
import { Authorizer, type AuthorizerDeps } from '../approvals/authorizer.js';
import { Rollbacks } from '../approvals/rollbacks.js';
import { checkHaltStatement } from '../auth/halt-statement.js';
import { FleetHalter } from '../halts/fleet-halter.js';
import { Halter } from '../halts/halter.js';
import type { PipelineCatalog } from '../catalog/catalog.js';
import type { ClusterAccess } from './cluster-access.js';
import type { PromotionLoop } from './loop.js';
import type { Runtime } from './runtime.js';
import type { HintSink, RecheckResult } from '../hints/sinks.js';
import type { ReadinessProbe } from '../ingress/ops.js';
import type { PipelineId } from '../pipeline/id.js';
import { plainKey } from '../pipeline/object-key.js';
import { fleetWhatIf } from '../evaluation/fleet-what-if.js';
import { TrainApprovals } from '../approvals/train-approvals.js';
import { KubeTrainWriter } from '../kube/train-writer.js';
import type { TrainKnowledge } from './trains.js';

/** The authorization doors: who may authorize, and the recorder that verifies first. */
function authorizations(
  rt: Runtime,
  catalog: PipelineCatalog,
  access: ClusterAccess,
  loop: PromotionLoop,
  trains: Pick<TrainKnowledge, 'book' | 'gates'>,
) {
  const { config, logger, metrics, now } = rt;
  const deps: AuthorizerDeps = {
    ...{ catalog, logger, now },
    verified: access.verified,
    status: access.status,
    events: access.writer,
    // The loop's evaluator: an authorization is judged as the promotion it allows is decided.
    evaluator: loop.evaluator,
    floors: config.authorizations.floors,
    breakGlass: config.authorizations.breakGlass,
    recheck: (id) => {
      loop.pipelines.requestPipeline(id, 'authorization');
    },
    onOutcome: (kind, outcome) => {
      metrics.authorizations.inc({ kind, outcome });
    },
    onUnkept: () => void access.crd.recheck(),
    previews: loop.previews,
  };
  const authorizer = new Authorizer(deps);
  const approvers = config.authorizations.approvers.map((a) => a.name);
  const rollbacks = new Rollbacks({ ...deps, approvers });
  const { halter, fleetHalts } = haltDoors(rt, catalog, access, loop);
  const principals = new Principals(config.authorizations);
  const trainApprovals = new TrainApprovals({
    ...{ catalog, authorizer, now, book: trains.book },
    trains: new KubeTrainWriter(rt.management, rt.calls),
    candidates: (namespace) => trains.gates.candidates(namespace),
    floors: config.authorizations.floors,
  });
  return { principals, authorizer, rollbacks, halter, fleetHalts, trainApprovals, now };
}

/** The stop-the-line halters (one Pipeline, across Pipelines) and the halt statements' check. */
function haltDoors(
  rt: Runtime,
  catalog: PipelineCatalog,
  access: ClusterAccess,
  loop: PromotionLoop,
) {
  const { config, logger, metrics, now } = rt;
  const deps = {
    ...{ catalog, logger, now, floors: config.authorizations.floors },
    status: access.status,
    events: access.writer,
    approvers: config.authorizations.approvers.map((a) => a.name),
    recheck: (id: PipelineId) => {
      loop.pipelines.requestPipeline(id, 'authorization');
    },
    onUnkept: () => void access.crd.recheck(),
    onOutcome: (kind: string, outcome: string) => {
      metrics.authorizations.inc({ kind, outcome });
    },
  };
  const statements = (statement: string, at: number) =>
    checkHaltStatement(config.authorizations, statement, at);
  const maxPipelines =
    rt.maxPipelinesPerHalt === undefined ? {} : { maxPipelines: rt.maxPipelinesPerHalt };
  const fleet = new FleetHalter({ ...deps, ...maxPipelines });
  return { halter: new Halter(deps), fleetHalts: { fleet, statements } };
}

/** [ingress] and [auth]: the HTTP app over the queues and the verified views. */
export function httpApp(
  rt: Runtime,
  catalog: PipelineCatalog,
  access: ClusterAccess,
  stages: { loop: PromotionLoop; trains: Pick<TrainKnowledge, 'book' | 'gates'> },
  readiness: ReadinessProbe,
) {
  const { config, logger, metrics, now } = rt;
  const { loop, trains } = stages;
  const { reconciler, hints } = loop;
  return buildApp({
    ...{ config, logger, hints, metrics, readiness, now },
    authorizations: authorizations(rt, catalog, access, loop, trains),
    legacyKeys: (id) => access.legacyKeys.keyFor(id),
    trains: {
      train: (namespace, name) =>
        trains.book
          .all()
          .find((t) => t.metadata.namespace === namespace && t.metadata.name === name),
    },
    // The loop's evaluator: the current side of a what-if is the live decision.
    whatIf: (policy, covers, at) =>
      fleetWhatIf(
        { catalog, verified: access.verified, evaluator: loop.evaluator },
        policy,
        covers,
        at,
      ),
    pipelines: {
      hintPipeline: (id) => hintAll(catalog, hints, id),
      view: (id) => reconciler.view(id),
      holds: (id) => catalog.has(id),
      preview: (id, env) => loop.previews.previewOf(id, env),
    },
  });
}

/**
 * A legacy webhook call names no object, so every target of the Pipeline gets a hint, as if
 * Flux had sent an event for each: coalesced and spaced like any other hint.
 */
function hintAll(catalog: PipelineCatalog, hints: HintSink, id: PipelineId): RecheckResult {
  const targets = catalog.targetsOf(id);
  if (targets.length === 0) return 'unknown';
  const results = targets.map((t) => hints.offer(plainKey(t.key), 'legacy-webhook'));
  return results.includes('full') ? 'full' : 'queued';
}

/**
 * The HTTP listeners: the app, and the metrics app when `server.metricsPort` is set; listen()
 * binds both (the metrics one on the app's host) and close() closes both.
 */
export function listeners(rt: Runtime, app: FastifyInstance) {
  const { config } = rt;
  const { metricsPort } = config.server;
  let metricsApp: FastifyInstance | undefined;
  let metricsAddress: string | undefined;
  return {
    listen: async (at?: { host?: string; port?: number }): Promise<string> => {
      const host = at?.host ?? config.server.host;
      const address = await app.listen({ host, port: at?.port ?? config.server.port });
      if (metricsPort !== undefined && metricsApp === undefined) {
        metricsApp = await buildMetricsApp(rt);
        metricsAddress = await metricsApp.listen({ host, port: metricsPort });
      }
      return address;
    },
    metricsAddress: () => metricsAddress,
    close: async () => {
      await Promise.all([app.close(), metricsApp?.close()]);
    },
  };
}
