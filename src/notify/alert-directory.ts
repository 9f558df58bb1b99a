/**
 * What every replica knows of the PromotionAlerts: which Pipelines and event types some alert
 * selects, so that the status writes of any replica record the events they owe
 * (outbox-record.ts) for exactly those, and a fleet without alerts records none. Refreshed from
 * the alerts' listing (the Lease holder's rounds, and a periodic listing on every replica); a
 * listing that fails keeps the last one, so an outage records what it did before.
 */
import type { PromotionAlert } from './alert-resource.js';
import {
  selects,
  wantsType,
  type SelectedPipeline,
  type SelectionPolicy,
} from './alert-selection.js';
import type { NotificationType } from './notification-event.js';

/** The alerts known, and the questions recording asks of them. */
export class AlertDirectory {
  private alerts: readonly PromotionAlert[] = [];
  private listed = false;

  constructor(private readonly policy: SelectionPolicy) {}

  /** Replaces what is known with a whole listing of the usable alerts. */
  update(alerts: readonly PromotionAlert[]): void {
    this.alerts = alerts;
    this.listed = true;
  }

  /** Whether an alert has been listed at least once (before that nothing is wanted). */
  get known(): boolean {
    return this.listed;
  }

  /** Whether some alert selects `pipeline` and wants events of `type`. */
  wants(pipeline: SelectedPipeline, type: NotificationType): boolean {
    return this.alerts.some(
      (alert) => wantsType(alert, type) && selects(alert, pipeline, this.policy),
    );
  }
}
