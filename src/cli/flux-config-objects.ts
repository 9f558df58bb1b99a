/**
 * The Flux objects `flux-config` writes for one cluster (pure): a generic-hmac Provider whose
 * address names the cluster, an Alert listing each referenced (kind, namespace) with `name:
 * '*'` (Flux matches the namespace literally), the Secret they need only when a key is given,
 * and their text as YAML.
 */
import { Document } from 'yaml';
import type { ClusterPlan, EventSource } from './flux-config-plan.js';

/** The notification-controller API version written: the served storage version of both CRDs. */
export const NOTIFICATION_API_VERSION = 'notification.toolkit.fluxcd.io/v1beta3';
/** Name of the Provider and of the Alert in every namespace they are written to. */
export const FLUX_OBJECT_NAME = 'promotion-gateway';
/** Name of the Secret the Provider references; its `token` is the cluster's HMAC key. */
export const HMAC_SECRET_NAME = 'promotion-gateway-hmac';

const LABELS = { 'app.kubernetes.io/part-of': 'promotion-gateway' };

/** A Kubernetes object as written: what kubectl and the tests read back. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

/** How the objects are placed and where the Provider posts. */
export interface FluxObjectOptions {
  /** The gateway's base URL (no trailing slash), as Flux reaches it. */
  gatewayUrl: string;
  /** Where the Provider, Alert and Secret go in the cluster-wide layout. */
  fluxNamespace: string;
  /** One Provider, Alert and Secret per namespace (notification-controller run with --no-cross-namespace-refs). */
  perNamespace: boolean;
}

/** The Flux objects of one cluster, and the namespaces whose Secret must hold its key. */
export interface ClusterObjects {
  providers: Manifest[];
  alerts: Manifest[];
  secretNamespaces: string[];
}

/** `POST /v1/events/{cluster}` under `gatewayUrl`: where the cluster's Provider posts. */
export function eventsAddress(gatewayUrl: string, cluster: string): string {
  return `${gatewayUrl}/v1/events/${encodeURIComponent(cluster)}`;
}

/**
 * The Provider and Alert (one pair in `fluxNamespace`, or one per source namespace) that send
 * every event of `plan`'s sources to the gateway, signed with the cluster's key.
 */
export function clusterObjects(plan: ClusterPlan, options: FluxObjectOptions): ClusterObjects {
  const address = eventsAddress(options.gatewayUrl, plan.name);
  const groups = options.perNamespace
    ? groupBy(plan.sources, (s) => s.namespace)
    : new Map([[options.fluxNamespace, [...plan.sources]]]);
  const namespaces = [...groups.keys()];
  return {
    providers: namespaces.map((ns) => provider(ns, address)),
    alerts: namespaces.map((ns) => alert(ns, groups.get(ns) ?? [])),
    secretNamespaces: namespaces,
  };
}

function meta(namespace: string, name: string): Manifest['metadata'] {
  return { name, namespace, labels: { ...LABELS } };
}

function provider(namespace: string, address: string): Manifest {
  return {
    apiVersion: NOTIFICATION_API_VERSION,
    kind: 'Provider',
    metadata: meta(namespace, FLUX_OBJECT_NAME),
    spec: { type: 'generic-hmac', address, secretRef: { name: HMAC_SECRET_NAME } },
  };
}

// No inclusionList: a failed release matters to the Pipeline's status as much as a good one,
// and an event costs the gateway at most one read (none for an object no Pipeline names).
// No eventMetadata either: the gateway never uses an event's payload, only the object named.
function alert(namespace: string, sources: readonly EventSource[]): Manifest {
  return {
    apiVersion: NOTIFICATION_API_VERSION,
    kind: 'Alert',
    metadata: meta(namespace, FLUX_OBJECT_NAME),
    spec: {
      providerRef: { name: FLUX_OBJECT_NAME },
      eventSeverity: 'info',
      eventSources: sources.map((s) => ({ kind: s.kind, name: '*', namespace: s.namespace })),
    },
  };
}

/** The Secret holding `token` (the HMAC key, as text) that the Provider in `namespace` names. */
export function hmacSecret(namespace: string, token: string): Manifest {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: meta(namespace, HMAC_SECRET_NAME),
    type: 'Opaque',
    stringData: { token },
  };
}

/** Objects as one multi-document YAML text, the first document after `comment` (if any). */
export function yamlDocuments(objects: readonly object[], comment?: string): string {
  return objects
    .map((object, index) => {
      const doc = new Document(object);
      if (index === 0 && comment !== undefined) doc.commentBefore = commentText(comment);
      return `---\n${doc.toString({ singleQuote: true })}`;
    })
    .join('');
}

/** `text` as the body of a YAML comment: each line after `#` and a space. */
export function commentText(text: string): string {
  return text
    .split('\n')
    .map((line) => (line === '' ? '' : ` ${line}`))
    .join('\n');
}

/** `text` as YAML comment lines (`# ...`), for files written by hand-built text. */
export function commentLines(text: string): string {
  return text
    .split('\n')
    .map((line) => (line === '' ? '#' : `# ${line}`))
    .join('\n');
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}
