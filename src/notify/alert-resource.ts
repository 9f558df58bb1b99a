/**
 * The PromotionAlert custom resource (notifications.promotion-gateway.dev/v1alpha1), as the
 * CRD in manifests/crd and schemas/promotion-alert.schema.json define it: the one TypeScript
 * source of its shape (docs/notifications.md, "The PromotionAlert resource").
 */
import type { Condition } from '../pipeline/pipeline-resource.js';
import type { NotificationType } from './notification-event.js';
import type { StreamRecord } from './stream-record.js';

/** apiVersion of every PromotionAlert. */
export const ALERT_API_VERSION = 'notifications.promotion-gateway.dev/v1alpha1';
/** kind of every PromotionAlert. */
export const ALERT_KIND = 'PromotionAlert';

/** What the receiver is sent; `generic` (Standard Webhooks JSON) when absent. */
export type AlertType = 'generic' | 'cloudevents' | 'slack' | 'msteams';

/** The type an alert without `spec.type` has (the CRD defaults it too). */
export const DEFAULT_ALERT_TYPE: AlertType = 'generic';
/** The delivery timeout of an alert without `spec.timeout` (the CRD defaults it too). */
export const DEFAULT_ALERT_TIMEOUT = '15s';

/** spec.pipelines[i]: every field given must match; absent namespace = the alert's own. */
export interface PipelineSelector {
  name?: string;
  namespace?: string;
  matchLabels?: Record<string, string>;
}

/** PromotionAlert .spec. */
export interface AlertSpec {
  type?: AlertType;
  /** http(s) URL without credentials; the Secret's `address` key replaces it. */
  address?: string;
  /** A Secret in the alert's namespace (keys: address, signingSecret, signingKey, headers). */
  secretRef?: { name: string };
  /** Absent = every type. */
  eventTypes?: NotificationType[];
  /** Absent = every Pipeline of the alert's namespace. */
  pipelines?: PipelineSelector[];
  /** generic only: a mustache template of the body. */
  template?: string;
  suspend?: boolean;
  /** Flux duration (ms, s, m), at most 5m; DEFAULT_ALERT_TIMEOUT when absent. */
  timeout?: string;
}

/** status.lastDelivery: the last notification sent, delivered or not. */
export interface LastDelivery {
  id: string;
  type: string;
  /** RFC 3339. */
  time: string;
  /** e.g. Delivered, Failed (the engine's words). */
  result: string;
}

/** status.counters: events since the alert was created, by what came of them. */
export interface AlertCounters {
  delivered?: number;
  failed?: number;
  superseded?: number;
  dropped?: number;
}

/** One entry of status.recent (at most 20); its shape is the engine's. */
export type RecentDelivery = Record<string, unknown>;

/** The most entries status.streams may hold (the CRD's maxItems). */
export const MAX_STREAMS = 1000;
/** The most entries status.recent may hold (the CRD's maxItems). */
export const MAX_RECENT = 20;

/** PromotionAlert .status; written only through AlertStatusWriter (src/kube). */
export interface AlertStatus {
  observedGeneration?: number;
  conditions?: Condition[];
  lastDelivery?: LastDelivery;
  backlog?: number;
  /** RFC 3339: when the oldest event still waiting happened. */
  oldestUndelivered?: string;
  counters?: AlertCounters;
  /** At most MAX_STREAMS. */
  streams?: StreamRecord[];
  /** Newest first, at most MAX_RECENT. */
  recent?: RecentDelivery[];
}

/** The metadata of a PromotionAlert the gateway reads. */
export interface AlertMeta {
  name: string;
  namespace: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  labels?: Record<string, string>;
  [field: string]: unknown;
}

/** A PromotionAlert whose whole object matched the schema (src/notify/alert-check.ts). */
export interface PromotionAlert {
  apiVersion: typeof ALERT_API_VERSION;
  kind: typeof ALERT_KIND;
  metadata: AlertMeta;
  spec: AlertSpec;
  status?: AlertStatus;
}

/**
 * A stored PromotionAlert whose spec was not checked (or did not pass): what the status writer
 * reads and writes, since an invalid alert still gets a status saying why.
 */
export interface UncheckedAlert {
  apiVersion: typeof ALERT_API_VERSION;
  kind: typeof ALERT_KIND;
  metadata: AlertMeta;
  spec?: unknown;
  status?: AlertStatus;
}

/**
 * The object as a stored PromotionAlert (apiVersion, kind, namespace and name), its spec not
 * yet checked; undefined for anything else. The object is not copied.
 */
export function asUncheckedAlert(object: unknown): UncheckedAlert | undefined {
  const candidate = object as Partial<UncheckedAlert> | null;
  if (candidate?.apiVersion !== ALERT_API_VERSION || candidate.kind !== ALERT_KIND)
    return undefined;
  const { namespace, name } = candidate.metadata ?? {};
  if (typeof namespace !== 'string' || namespace === '' || typeof name !== 'string' || name === '')
    return undefined;
  return candidate as UncheckedAlert;
}

/** `namespace/name` of an alert, as logs and Events name it. */
export function alertName(alert: { metadata: { namespace: string; name: string } }): string {
  return `${alert.metadata.namespace}/${alert.metadata.name}`;
}
