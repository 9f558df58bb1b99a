/**
 * A stand-in for Flux in the demo: moves a HelmRelease to a new chart version the way
 * helm-controller would (spec, generation, history, conditions) through the cluster's API, or
 * has the Helm tests of the version it runs fail, then sends the generic-hmac event
 * notification-controller would send.
 */
import { createHmac } from 'node:crypto';
import {
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
} from '@kubernetes/client-node';
import {
  failedTestStatus,
  failedUpgradeStatus,
  releasedStatus,
  testFailedEvent,
  upgradeEvent,
  type PreviousStatus,
  type ReleasedStatus,
} from 'kube-sim/flux';
import type { ReleaseRef } from 'kube-sim/flux';
import type { KubeObject } from 'promotion-gateway';
import { APP_NAME, APP_NAMESPACE, APP_RELEASE } from './objects.js';

/** The demo's apps a deploy may name: podinfo, and the release train's api and web. */
export type AppRef = ReleaseRef;

const HR = { group: 'helm.toolkit.fluxcd.io', version: 'v2', plural: 'helmreleases' };

/**
 * Rolls the environment's HelmRelease of `app` (podinfo by default) to `version` (or, with
 * `fail`, has the upgrade fail the way helm-controller reports it: Ready=False, the previous
 * release still deployed); resolves to the stored object.
 */
export async function rollOut(
  kubeConfig: KubeConfig,
  version: string,
  fail = false,
  app: AppRef = APP_RELEASE,
): Promise<KubeObject> {
  const api = kubeConfig.makeApiClient(CustomObjectsApi);
  const where = { ...HR, namespace: app.namespace, name: app.name };
  const patched = (await api.patchNamespacedCustomObject(
    { ...where, body: { spec: { chart: { spec: { version } } } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  )) as KubeObject & { status?: PreviousStatus };
  const generation = patched.metadata.generation ?? 1;
  const write = fail ? failedUpgradeStatus : releasedStatus;
  const status = write({
    ref: app,
    previous: patched.status,
    version,
    generation,
    now: new Date(),
  });
  return (await api.replaceNamespacedCustomObjectStatus({
    ...where,
    body: { ...patched, status },
  })) as KubeObject;
}

/**
 * Has the Helm tests of `version` fail where the environment's HelmRelease runs it, the way
 * helm-controller reports it (Ready=False, TestFailed; the release still deployed); resolves to
 * the stored object, or undefined when its newest release is of another version.
 */
export async function failTests(
  kubeConfig: KubeConfig,
  version: string,
): Promise<KubeObject | undefined> {
  const api = kubeConfig.makeApiClient(CustomObjectsApi);
  const where = { ...HR, namespace: APP_NAMESPACE, name: APP_NAME };
  const current = (await api.getNamespacedCustomObject(where)) as KubeObject & {
    status?: ReleasedStatus;
  };
  if (current.status?.history?.[0]?.chartVersion !== version) return undefined;
  const status = failedTestStatus(current.status ?? {}, new Date());
  return (await api.replaceNamespacedCustomObjectStatus({
    ...where,
    body: { ...current, status },
  })) as KubeObject;
}

/** Posts the upgrade event for `object` to the gateway, signed as a generic-hmac Provider. */
export function notify(
  gatewayUrl: string,
  cluster: string,
  hmacKey: string,
  object: KubeObject,
  version: string,
): Promise<number> {
  const history = (object.status as PreviousStatus | undefined)?.history;
  const body = upgradeEvent(object, version, history?.[0]?.version ?? 1, new Date());
  return send(gatewayUrl, cluster, hmacKey, body);
}

/** Posts the failed-test warning for `object` (after failTests) to the gateway, signed so too. */
export function notifyTestFailed(
  gatewayUrl: string,
  cluster: string,
  hmacKey: string,
  object: KubeObject,
): Promise<number> {
  return send(gatewayUrl, cluster, hmacKey, testFailedEvent(object, new Date()));
}

async function send(
  gatewayUrl: string,
  cluster: string,
  hmacKey: string,
  body: string,
): Promise<number> {
  const signature = createHmac('sha256', Buffer.from(hmacKey, 'utf8')).update(body).digest('hex');
  const response = await fetch(`${gatewayUrl}/v1/events/${cluster}`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'Gotk-Component': 'helm-controller',
      'X-Signature': `sha256=${signature}`,
    },
    body,
  });
  await response.body?.cancel();
  return response.status;
}
