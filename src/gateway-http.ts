/**
 * The composition root's HTTP side: the fastify app over the queues, the verified views and
 * the authorization doors (see gateway.ts for the data flow it feeds).
 */
import { buildApp } from './app.js';
import { legacyKeyResolver, legacySecretFromSpec } from './auth/legacy-keys.js';
import { Principals } from './auth/principals.js';
import { Authorizer } from './authorize/authorizer.js';
import type { PipelineCatalog } from './catalog/catalog.js';
import type { ClusterAccess, PromotionLoop, Runtime } from './gateway.js';
import type { ReadinessProbe } from './ingress/ops.js';
import { cachedSecretKeyReader } from './kube/secrets.js';

/** How long a legacy webhook key lookup is cached. */
const LEGACY_KEY_TTL_MS = 30_000;

/** The authorization doors: who may authorize, and the recorder that verifies first. */
function authorizations(
  rt: Runtime,
  catalog: PipelineCatalog,
  access: ClusterAccess,
  loop: PromotionLoop,
) {
  const { config, logger, metrics, now } = rt;
  const authorizer = new Authorizer({
    ...{ catalog, logger, now },
    verified: access.verified,
    writer: access.writer,
    policy: config.promotion.retry,
    floors: config.authorizations.floors,
    recheck: (id) => {
      loop.pipelines.requestPipeline(id, 'authorization');
    },
    onOutcome: (kind, outcome) => {
      metrics.authorizations.inc({ kind, outcome });
    },
  });
  return { principals: new Principals(config.authorizations), authorizer, now };
}

/** [ingress] and [auth]: the HTTP app over the queues and the verified views. */
export function httpApp(
  rt: Runtime,
  catalog: PipelineCatalog,
  access: ClusterAccess,
  loop: PromotionLoop,
  readiness: ReadinessProbe,
) {
  const { config, logger, metrics, management, calls, now } = rt;
  const { reconciler, pipelines, hints } = loop;
  return buildApp({
    ...{ config, logger, hints, metrics, readiness },
    authorizations: authorizations(rt, catalog, access, loop),
    legacyKeys: legacyKeyResolver(
      legacySecretFromSpec((id) => catalog.get(id)),
      cachedSecretKeyReader(management, calls, LEGACY_KEY_TTL_MS, now),
    ),
    pipelines: {
      // A legacy call names no object, so the whole Pipeline is read again.
      requestPipeline: (id, source) => {
        reconciler.requireFullRead(id);
        return pipelines.requestPipeline(id, source);
      },
      view: (id) => reconciler.view(id),
    },
  });
}
