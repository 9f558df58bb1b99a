/**
 * The demo chart's broken versions: `deploy --break-after-promotion` (another process) marks a
 * version in a ConfigMap of the management cluster, and the Flux stand-in that rolls promotions
 * out (auto-rollout.ts, in the demo's process) reads it there, so that the version runs healthy
 * where it was deployed and fails its Helm tests once the gateway promotes it to staging. The
 * fleet is all the two share, as it is for everything else the commands do.
 */
import { CoreV1Api, type KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import type { Fleet } from 'kube-sim';
import { APP_NAMESPACE } from './objects.js';

/** The ConfigMap (in the app's namespace in management) listing the broken versions. */
export const CHART_FAULTS = 'demo-chart-faults';
/** Its key: the versions whose Helm tests fail once promoted, one a line. */
const BREAK_AFTER_PROMOTION = 'breakAfterPromotion';

/** The versions `configMap` marks; none for a missing one. */
function marked(configMap: V1ConfigMap | undefined): string[] {
  const text = configMap?.data?.[BREAK_AFTER_PROMOTION] ?? '';
  return text.split('\n').filter((v) => v !== '');
}

/**
 * Marks `version` as breaking once promoted, through the API server `kubeConfig`'s current
 * context names (management); a version marked already is not listed twice.
 */
export async function markBreakAfterPromotion(
  kubeConfig: KubeConfig,
  version: string,
): Promise<void> {
  const api = kubeConfig.makeApiClient(CoreV1Api);
  const where = { name: CHART_FAULTS, namespace: APP_NAMESPACE };
  const current = await api.readNamespacedConfigMap(where).catch(() => undefined);
  const versions = [...new Set([...marked(current), version])];
  const body: V1ConfigMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      ...where,
      ...(current?.metadata?.resourceVersion === undefined
        ? {}
        : { resourceVersion: current.metadata.resourceVersion }),
    },
    data: { [BREAK_AFTER_PROMOTION]: versions.join('\n') },
  };
  if (current === undefined)
    await api.createNamespacedConfigMap({ namespace: APP_NAMESPACE, body });
  else await api.replaceNamespacedConfigMap({ ...where, body });
}

/** Whether `version` is marked as breaking once promoted (read in-process from the fleet). */
export function breaksAfterPromotion(fleet: Fleet, version: string): boolean {
  const configMap = fleet.cluster('management').get('v1', 'ConfigMap', APP_NAMESPACE, CHART_FAULTS);
  return marked(configMap).includes(version);
}
