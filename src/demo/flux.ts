/**
 * A stand-in for Flux in the demo: moves a HelmRelease to a new chart version the way
 * helm-controller would (spec, generation, history, conditions) through the cluster's API,
 * then sends the generic-hmac event notification-controller would send.
 */
import { createHmac } from 'node:crypto';
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { patchOptions, timeoutOptions } from '../kube/request-options.js';
import type { KubeObject } from '../kube/types.js';
import { APP_NAME, APP_NAMESPACE, releasedStatus, upgradeEvent } from './objects.js';

const HR = { group: 'helm.toolkit.fluxcd.io', version: 'v2', plural: 'helmreleases' };
const TIMEOUT_MS = 10_000;

/** Rolls the environment's HelmRelease to `version`; resolves to the stored object. */
export async function rollOut(kubeConfig: KubeConfig, version: string): Promise<KubeObject> {
  const api = kubeConfig.makeApiClient(CustomObjectsApi);
  const where = { ...HR, namespace: APP_NAMESPACE, name: APP_NAME };
  const patched = (await api.patchNamespacedCustomObject(
    { ...where, body: { spec: { chart: { spec: { version } } } } },
    patchOptions(TIMEOUT_MS, 'application/merge-patch+json'),
  )) as KubeObject & {
    status?: { history?: { chartVersion: string; version: number; status: string }[] };
  };
  const generation = patched.metadata.generation ?? 1;
  const status = releasedStatus(patched.status, version, generation, new Date());
  return (await api.replaceNamespacedCustomObjectStatus(
    { ...where, body: { ...patched, status } },
    timeoutOptions(TIMEOUT_MS),
  )) as KubeObject;
}

/** Posts the upgrade event for `object` to the gateway, signed as a generic-hmac Provider. */
export async function notify(
  gatewayUrl: string,
  cluster: string,
  hmacKey: string,
  object: KubeObject,
  version: string,
): Promise<number> {
  const history = (object.status as { history?: { version: number }[] } | undefined)?.history;
  const body = upgradeEvent(object, version, history?.[0]?.version ?? 1, new Date());
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
