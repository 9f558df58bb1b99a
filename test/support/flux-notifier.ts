/**
 * notification-controller's dispatch of one event, simulated over a kube-sim cluster's stored
 * Alerts, Providers and Secrets as fluxcd/notification-controller's event handler does it
 * (internal/server/event_handlers.go): an event source's namespace defaults to the Alert's and
 * is compared literally (so `namespace: '*'` matches nothing), `name: '*'` matches any name,
 * severity `info` lets every event through, exclusion and inclusion lists filter the message,
 * and with `--no-cross-namespace-refs=true` an Alert hears only its own namespace. The Provider
 * and its Secret are read from the Alert's namespace; a generic-hmac Provider signs the body
 * with the Secret's `token`.
 */
import type { SimCluster } from 'kube-sim';
import { postSigned, upgradeBody } from './gateway-harness.js';
import type { KubeObject } from '../../src/kube/ports.js';

/** The notification-controller API the simulation reads. */
export const NOTIFICATION_API = 'notification.toolkit.fluxcd.io/v1beta3';

interface EventSourceRef {
  kind: string;
  name: string;
  namespace?: string;
  matchLabels?: Record<string, string>;
}

interface AlertObject {
  metadata: { name: string; namespace: string };
  spec: {
    providerRef: { name: string };
    eventSeverity?: 'info' | 'error';
    eventSources: EventSourceRef[];
    exclusionList?: string[];
    inclusionList?: string[];
    suspend?: boolean;
  };
}

interface ProviderObject {
  spec: { type: string; address?: string; secretRef?: { name: string }; suspend?: boolean };
}

/** One POST the simulated controller made, and the gateway's answer. */
export interface Delivery {
  alert: string;
  address: string;
  status: number;
  body: unknown;
}

/** How the simulated controller runs. */
export interface NotifierOptions {
  /** notification-controller's `--no-cross-namespace-refs=true` (multi-tenancy lockdown). */
  noCrossNamespaceRefs?: boolean;
}

interface FluxEvent {
  involvedObject: { kind: string; namespace: string; name: string };
  severity: 'info' | 'error';
  message: string;
}

/**
 * Sends the UpgradeSucceeded event of HelmRelease `object` (stored in `cluster`) wherever the
 * cluster's Alerts route it; resolves with one Delivery per Alert that matched (none when no
 * Alert's event sources name the object's namespace and kind).
 */
export async function dispatchEvent(
  cluster: SimCluster,
  object: KubeObject,
  options: NotifierOptions = {},
): Promise<Delivery[]> {
  const body = upgradeBody(object);
  const event = JSON.parse(body.toString('utf8')) as FluxEvent;
  const labels = (object.metadata as { labels?: Record<string, string> }).labels ?? {};
  const alerts = cluster.list(NOTIFICATION_API, 'Alert') as unknown as AlertObject[];
  const deliveries: Delivery[] = [];
  for (const alert of alerts.filter((a) => routes(a, event, labels))) {
    const { namespace } = alert.metadata;
    if (options.noCrossNamespaceRefs === true && event.involvedObject.namespace !== namespace)
      continue;
    const target = providerTarget(cluster, namespace, alert.spec.providerRef.name);
    if (target === undefined) continue;
    const res = await postSigned(target.address, '', body, target.key);
    deliveries.push({
      alert: `${namespace}/${alert.metadata.name}`,
      address: target.address,
      status: res.status,
      body: await res.json(),
    });
  }
  return deliveries;
}

function routes(alert: AlertObject, event: FluxEvent, labels: Record<string, string>): boolean {
  const { spec } = alert;
  if (spec.suspend === true) return false;
  if ((spec.exclusionList ?? []).some((re) => new RegExp(re).test(event.message))) return false;
  const inclusion = spec.inclusionList ?? [];
  if (inclusion.length > 0 && !inclusion.some((re) => new RegExp(re).test(event.message)))
    return false;
  const severity = spec.eventSeverity ?? 'info';
  if (severity !== 'info' && severity !== event.severity) return false;
  return spec.eventSources.some((source) => {
    const namespace = source.namespace ?? alert.metadata.namespace;
    const { involvedObject: io } = event;
    if (io.namespace !== namespace || io.kind !== source.kind) return false;
    if (source.name !== '*') return io.name === source.name;
    return Object.entries(source.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
  });
}

/** The Provider's address and generic-hmac key, both read from the Alert's namespace. */
function providerTarget(
  cluster: SimCluster,
  namespace: string,
  name: string,
): { address: string; key: Buffer | undefined } | undefined {
  const provider = cluster.get(NOTIFICATION_API, 'Provider', namespace, name) as
    ProviderObject | undefined;
  if (provider === undefined || provider.spec.suspend === true) return undefined;
  const secretName = provider.spec.secretRef?.name;
  const secret =
    secretName === undefined
      ? undefined
      : (cluster.get('v1', 'Secret', namespace, secretName) as
          { data?: Record<string, string> } | undefined);
  if (secretName !== undefined && secret === undefined) return undefined;
  const data = secret?.data ?? {};
  const decode = (value: string | undefined) =>
    value === undefined ? undefined : Buffer.from(value, 'base64');
  const address = decode(data.address)?.toString('utf8') ?? provider.spec.address;
  if (address === undefined || address === '') return undefined;
  const token = decode(data.token);
  return { address, key: provider.spec.type === 'generic-hmac' ? token : undefined };
}
