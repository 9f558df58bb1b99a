/**
 * Missing events, detected by the resync. A pass (not the start-up one: nothing was observed
 * before it) that finds a target's settled state changed, with no event about the object since
 * it was last seen here (verify/announcements.ts), and no Pipeline status showing the new
 * state yet (so no other replica observed it first, by an event or otherwise), has found a
 * change Flux did not announce. Each is counted; each (cluster, namespace) gets one warning
 * per pass; the Pipelines show it through their view (EventsMissing, status/pipeline-status.ts).
 */
import type { PipelineCatalog } from '../catalog/catalog.js';
import type { CatalogTarget } from '../catalog/targets.js';
import type { TargetStatus } from '../evaluate/decisions.js';
import type { GatewayLogger } from '../log.js';
import { targetRecord } from '../status/pipeline-status.js';
import { sameObservation } from '../status/view-change.js';
import type { ChangeDetection, FoundChange } from '../verify/verified-targets.js';

/** The warning logged once per (cluster, namespace) and pass. */
export const UNANNOUNCED_MESSAGE = 'changes found by the resync that no event announced';

/** What the warning names as the likely causes, most likely first. */
export const LIKELY_CAUSES: readonly string[] = [
  "no Flux Alert in that cluster covers the namespace (an Alert's eventSources match the " +
    "namespace literally: one entry per namespace; only the name may be '*')",
  "the Provider's Secret holds a wrong key: the gateway answers its events 401 and logs each " +
    "refusal as 'request refused', saying why",
  "the Provider's address does not reach the gateway (URL, cluster name in the path, TLS, " +
    'network policy): notification-controller logs the failed POSTs',
];

/** Most objects one warning names; the rest are counted. */
const NAMED_OBJECTS = 10;

type CatalogView = Pick<PipelineCatalog, 'pipelinesFor' | 'get' | 'targetsOf'>;

/**
 * Whether some Pipeline's stored status (as the watch last delivered it) already shows
 * `status` for the target's object: then another replica observed it first.
 */
export function shownInStatus(
  catalog: CatalogView,
  target: CatalogTarget,
  status: TargetStatus,
): boolean {
  return catalog.pipelinesFor(target.key).some((id) => {
    const pipeline = catalog.get(id);
    if (pipeline === undefined) return false;
    return catalog.targetsOf(id).some((t) => {
      if (t.id !== target.id) return false;
      const spec = pipeline.spec.environments.find((e) => e.name === t.environment);
      const specTarget = spec?.targets[t.index];
      const stored = pipeline.status?.environments?.[t.environment]?.targets?.[t.index];
      if (specTarget === undefined || stored === undefined) return false;
      return sameObservation(stored, targetRecord(pipeline.spec.appRef, specTarget, status));
    });
  });
}

/** The detection one pass hands the verified state: first observations, over the catalog. */
export function changeDetection(catalog: CatalogView): ChangeDetection {
  return { firstObserved: (target, status) => !shownInStatus(catalog, target, status), found: [] };
}

/** One warning per (cluster, namespace) of `changes`, naming its objects and the causes. */
export function warnUnannounced(logger: GatewayLogger, changes: readonly FoundChange[]): void {
  const byNamespace = new Map<string, FoundChange[]>();
  for (const change of changes) {
    const { cluster, namespace } = change.target.key;
    const id = `${cluster}/${namespace}`;
    const list = byNamespace.get(id);
    if (list === undefined) byNamespace.set(id, [change]);
    else list.push(change);
  }
  for (const group of byNamespace.values()) {
    const { cluster, namespace } = group[0]?.target.key ?? { cluster: '', namespace: '' };
    const objects = group.map(describeChange);
    logger.warn(
      {
        cluster,
        namespace,
        changes: group.length,
        objects: objects.slice(0, NAMED_OBJECTS),
        ...(objects.length > NAMED_OBJECTS ? { more: objects.length - NAMED_OBJECTS } : {}),
        likelyCauses: LIKELY_CAUSES,
      },
      UNANNOUNCED_MESSAGE,
    );
  }
}

function describeChange({ target, previous, status }: FoundChange): string {
  const state = (s: TargetStatus) => `${s.revision ?? 'no revision'} ${s.health}`;
  return `${target.key.kind} ${target.key.name}: ${state(previous)} -> ${state(status)}`;
}
