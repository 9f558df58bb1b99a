/**
 * Missing events, detected by the resync. A pass (not the start-up one: nothing was observed
 * before it) that finds a target's settled state changed, with no event about the object since
 * it was last seen here (verify/announcements.ts), and no Pipeline status showing the new
 * state yet (so no other replica observed it first, by an event or otherwise), has found a
 * change Flux did not announce. Each is counted; each cluster gets one warning per pass,
 * naming the namespaces and objects; the Pipelines show it through their view (EventsMissing,
 * status/compute-status.ts).
 */
import type { PipelineCatalog } from '../catalog/catalog.js';
import type { CatalogTarget } from '../catalog/targets.js';
import type { TargetStatus } from '../evaluate/decisions.js';
import type { GatewayLogger } from '../log.js';
import { targetRecord } from '../status/compute-status.js';
import { sameObservation } from '../status/view-change.js';
import type { ChangeDetection, FoundChange } from '../verify/verified-targets.js';

/** The warning logged once per cluster and pass. */
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

/** Most objects, and most namespaces, one warning names; the rest are counted. */
const NAMED = 10;

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

/**
 * One warning per cluster of `changes`, naming its namespaces, its objects and the causes. Per
 * cluster, not per namespace: where every application has namespaces of its own, a pass after
 * lost events found 8,000 changes in as many namespaces, and 8,000 warnings at once (a burst
 * of log text in memory until written) set the gateway's peak memory
 * (docs/adr/0018-one-warning-per-cluster-for-unannounced-changes.md).
 */
export function warnUnannounced(logger: GatewayLogger, changes: readonly FoundChange[]): void {
  const byCluster = new Map<string, FoundChange[]>();
  for (const change of changes) {
    const { cluster } = change.target.key;
    const list = byCluster.get(cluster);
    if (list === undefined) byCluster.set(cluster, [change]);
    else list.push(change);
  }
  for (const [cluster, group] of byCluster) {
    const namespaces = [...new Set(group.map((change) => change.target.key.namespace))];
    const objects = group.slice(0, NAMED).map(describeChange);
    logger.warn(
      {
        cluster,
        changes: group.length,
        namespaces: namespaces.slice(0, NAMED),
        ...(namespaces.length > NAMED ? { moreNamespaces: namespaces.length - NAMED } : {}),
        objects,
        ...(group.length > NAMED ? { more: group.length - NAMED } : {}),
        likelyCauses: LIKELY_CAUSES,
      },
      UNANNOUNCED_MESSAGE,
    );
  }
}

function describeChange({ target, previous, status }: FoundChange): string {
  const state = (s: TargetStatus) => `${s.revision ?? 'no revision'} ${s.health}`;
  const { kind, namespace, name } = target.key;
  return `${kind} ${namespace}/${name}: ${state(previous)} -> ${state(status)}`;
}
