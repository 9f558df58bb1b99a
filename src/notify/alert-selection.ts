/**
 * Which Pipelines and event types a PromotionAlert selects (docs/notifications.md, "The
 * PromotionAlert resource"). Pure: the operator's policy is an argument.
 *
 * An alert reads Pipelines of its own namespace; another namespace only where the operator's
 * `notifications.crossNamespace` allows it, because whoever may create an alert in a namespace
 * would otherwise learn the promotions of every team (and make the gateway send them anywhere).
 */
import type { NotificationsConfig } from '../config/gateway-config.js';
import type { NotificationType } from './notification-event.js';
import type { AlertSpec, PipelineSelector } from './alert-resource.js';

/** What the operator allows alerts: the `notifications` section of the configuration. */
export type SelectionPolicy = Pick<NotificationsConfig, 'crossNamespace'>;

/** The parts of an alert selection reads (a PromotionAlert has them). */
export interface SelectingAlert {
  metadata: { namespace: string };
  spec: Pick<AlertSpec, 'pipelines' | 'eventTypes'>;
}

/** The parts of a Pipeline selection reads (a Pipeline has them). */
export interface SelectedPipeline {
  metadata: { namespace: string; name: string; labels?: unknown };
}

/** True when an alert in `alertNamespace` may select Pipelines in `namespace`. */
export function mayReach(
  alertNamespace: string,
  namespace: string,
  policy: SelectionPolicy,
): boolean {
  if (namespace === alertNamespace) return true;
  const { crossNamespace } = policy;
  return typeof crossNamespace === 'boolean'
    ? crossNamespace
    : crossNamespace.includes(alertNamespace);
}

/**
 * True when `alert` selects `pipeline`: no `pipelines` selects every Pipeline of the alert's
 * namespace; otherwise some entry matches it (its namespace, name and every label given), in a
 * namespace the policy lets the alert reach.
 */
export function selects(
  alert: SelectingAlert,
  pipeline: SelectedPipeline,
  policy: SelectionPolicy,
): boolean {
  const own = alert.metadata.namespace;
  const { pipelines } = alert.spec;
  if (pipelines === undefined) return pipeline.metadata.namespace === own;
  return pipelines.some((entry) => {
    const namespace = entry.namespace ?? own;
    return (
      namespace === pipeline.metadata.namespace &&
      mayReach(own, namespace, policy) &&
      (entry.name === undefined || entry.name === pipeline.metadata.name) &&
      labelsMatch(entry, pipeline.metadata.labels)
    );
  });
}

/** True when `alert` wants events of `type` (no `eventTypes` = every type). */
export function wantsType(alert: SelectingAlert, type: NotificationType): boolean {
  const { eventTypes } = alert.spec;
  return eventTypes === undefined || eventTypes.includes(type);
}

/**
 * The namespaces whose Pipelines `alert` may select (for listing or indexing them); those the
 * policy refuses are left out (selectionProblem() reports them).
 */
export function selectedNamespaces(alert: SelectingAlert, policy: SelectionPolicy): string[] {
  const own = alert.metadata.namespace;
  const wanted = (alert.spec.pipelines ?? [{}]).map((entry) => entry.namespace ?? own);
  return [...new Set(wanted)].filter((namespace) => mayReach(own, namespace, policy));
}

/**
 * Why `alert`'s selection cannot be used as written, naming the field, or undefined: an entry
 * naming a namespace the policy does not let the alert reach.
 */
export function selectionProblem(
  alert: SelectingAlert,
  policy: SelectionPolicy,
): string | undefined {
  const own = alert.metadata.namespace;
  const index = (alert.spec.pipelines ?? []).findIndex(
    (entry) => entry.namespace !== undefined && !mayReach(own, entry.namespace, policy),
  );
  if (index < 0) return undefined;
  const namespace = alert.spec.pipelines?.[index]?.namespace ?? '';
  return `spec.pipelines[${index}].namespace: ${namespace} is not the alert's namespace, and the gateway's configuration (notifications.crossNamespace) does not let alerts in ${own} select Pipelines of other namespaces`;
}

function labelsMatch(entry: PipelineSelector, labels: unknown): boolean {
  const wanted = Object.entries(entry.matchLabels ?? {});
  if (wanted.length === 0) return true;
  if (typeof labels !== 'object' || labels === null) return false;
  const have = labels as Record<string, unknown>;
  return wanted.every(([key, value]) => Object.hasOwn(have, key) && have[key] === value);
}
