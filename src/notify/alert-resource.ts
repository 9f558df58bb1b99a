/**
 * The PromotionAlert custom resource (notifications.promotion-gateway.dev/v1alpha1), as the
 * CRD in manifests/crd and schemas/promotion-alert.schema.json define it: the types of the
 * declaration in src/shapes both are generated from (docs/notifications.md, "The PromotionAlert
 * resource").
 */
import type { Static } from 'typebox';
import type {
  AlertCountersSchema,
  AlertSpecSchema,
  AlertStatusSchema,
  LastDeliverySchema,
  PipelineSelectorSchema,
} from '../shapes/promotion-alert.js';
import type { StreamRecord } from './stream-record.js';

/** apiVersion of every PromotionAlert. */
export const ALERT_API_VERSION = 'notifications.promotion-gateway.dev/v1alpha1';
/** kind of every PromotionAlert. */
export const ALERT_KIND = 'PromotionAlert';

/** PromotionAlert .spec. */
export type AlertSpec = Static<typeof AlertSpecSchema>;

/** What the receiver is sent; `generic` (Standard Webhooks JSON) when absent. */
export type AlertType = NonNullable<AlertSpec['type']>;

/** The type an alert without `spec.type` has (the CRD defaults it too). */
export const DEFAULT_ALERT_TYPE: AlertType = 'generic';
/** The delivery timeout of an alert without `spec.timeout` (the CRD defaults it too). */
export const DEFAULT_ALERT_TIMEOUT = '15s';

/** spec.pipelines[i]: every field given must match; absent namespace = the alert's own. */
export type PipelineSelector = Static<typeof PipelineSelectorSchema>;

/** status.lastDelivery: the last notification sent, delivered or not. */
export type LastDelivery = Static<typeof LastDeliverySchema>;

/** status.counters: events since the alert was created, by what came of them. */
export type AlertCounters = Static<typeof AlertCountersSchema>;

/** One entry of status.recent (at most 20); its shape is the engine's. */
export type RecentDelivery = Record<string, unknown>;

/** The most entries status.streams may hold (the CRD's maxItems). */
export const MAX_STREAMS = 1000;
/** The most entries status.recent may hold (the CRD's maxItems). */
export const MAX_RECENT = 20;

/**
 * PromotionAlert .status; written only through AlertStatusWriter (src/kube). A stream's fields
 * beyond `pipeline` and `environment` are the outbox's (the CRD preserves them unchecked).
 */
export interface AlertStatus extends Omit<Static<typeof AlertStatusSchema>, 'streams'> {
  /** At most MAX_STREAMS. */
  streams?: StreamRecord[];
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
