/**
 * The PromotionAlerts of the management cluster, as the delivery engine sees them on each pass:
 * one paged LIST (or one per configured namespace) through the management cluster's
 * ObjectReader, every alert checked (alert-check.ts). An alert that fails the check is returned
 * with its problem, not dropped, so the engine can say why in its status (Ready=False).
 */
import type { ObjectReader, ReadFailureReason } from '../kube/ports.js';
import {
  ALERT_API_VERSION,
  ALERT_KIND,
  asUncheckedAlert,
  type PromotionAlert,
  type UncheckedAlert,
} from './alert-resource.js';
import { checkAlert, type AlertPolicy } from './alert-check.js';

/** An alert that cannot be used as written, and why (one line naming the field). */
export interface InvalidAlert {
  alert: UncheckedAlert;
  problem: string;
}

/** Every alert listed, sorted by namespace then name: usable ones and invalid ones. */
export interface AlertListing {
  alerts: PromotionAlert[];
  invalid: InvalidAlert[];
}

/** A listing, or why the alerts could not be listed (secret-free). */
export type AlertListResult =
  ({ ok: true } & AlertListing) | { ok: false; reason: ReadFailureReason; message: string };

/** What an AlertSource needs besides the management cluster's reader. */
export interface AlertSourceOptions {
  /** Namespaces to list alerts in; empty = every namespace (the gateway's pipelineNamespaces). */
  namespaces: readonly string[];
  /** The operator's `notifications` configuration. */
  policy: AlertPolicy;
}

/** Lists and checks the PromotionAlerts of the management cluster. */
export class AlertSource {
  constructor(
    private readonly management: ObjectReader,
    private readonly options: AlertSourceOptions,
  ) {}

  /**
   * The current alerts: one LIST per namespace scope (pages of 500), every object checked.
   * When any scope fails, the whole listing fails: a partial one would look like deletions.
   */
  async list(): Promise<AlertListResult> {
    const scopes = this.options.namespaces.length === 0 ? [undefined] : this.options.namespaces;
    const objects: unknown[] = [];
    const results = await Promise.all(
      scopes.map((namespace) =>
        this.management.list(ALERT_API_VERSION, ALERT_KIND, namespace, (page) => {
          objects.push(...page);
        }),
      ),
    );
    for (const failed of results) {
      if (failed.ok) continue;
      const message = `listing PromotionAlerts failed: ${failed.message}`;
      return { ok: false, reason: failed.reason, message };
    }
    return { ok: true, ...this.check(objects) };
  }

  /** Checks listed objects (anything not shaped like a stored alert is skipped). */
  check(objects: readonly unknown[]): AlertListing {
    const listing: AlertListing = { alerts: [], invalid: [] };
    for (const object of objects) {
      const alert = asUncheckedAlert(object);
      if (alert === undefined) continue;
      const checked = checkAlert(alert, this.options.policy);
      if (checked.ok) listing.alerts.push(checked.alert);
      else listing.invalid.push({ alert: checked.alert, problem: checked.problem });
    }
    listing.alerts.sort(byName);
    listing.invalid.sort((a, b) => byName(a.alert, b.alert));
    return listing;
  }
}

function byName(a: { metadata: { namespace: string; name: string } }, b: typeof a): number {
  const key = (x: typeof a) => `${x.metadata.namespace}/${x.metadata.name}`;
  return key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
}
