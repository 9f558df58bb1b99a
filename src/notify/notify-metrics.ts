/**
 * The notification metrics, registered on the gateway's own registry: deliveries by result,
 * and per alert the backlog and the age of its oldest undelivered event. Alert names are
 * bounded by the alerts that exist (namespace/name); no URL or secret is ever a label.
 */
import { Counter, Gauge, type Registry } from 'prom-client';

/** The three notification metrics and the hooks the notifier reports through. */
export interface NotifyMetrics {
  onResult: (alert: string, result: string) => void;
  onBacklog: (alert: string, backlog: number, oldest: number | undefined) => void;
}

/** Registers the metrics on `registry`; `now` dates the oldest event's age at scrape time. */
export function notifyMetrics(registry: Registry, now: () => number): NotifyMetrics {
  const registers = [registry];
  const deliveries = new Counter({
    name: 'promotion_gateway_notifications_total',
    help: 'Notification events by alert and result (Delivered, Failed, Gone, Superseded, Dropped)',
    labelNames: ['alert', 'result'] as const,
    registers,
  });
  const backlog = new Gauge({
    name: 'promotion_gateway_notification_backlog',
    help: 'Events waiting for delivery, by alert',
    labelNames: ['alert'] as const,
    registers,
  });
  const oldest = new Map<string, number>();
  new Gauge({
    name: 'promotion_gateway_notification_oldest_undelivered_seconds',
    help: 'Age of the oldest event waiting for delivery, by alert (0 when none waits)',
    labelNames: ['alert'] as const,
    registers,
    collect() {
      this.reset();
      for (const [alert, at] of oldest) this.set({ alert }, Math.max(0, (now() - at) / 1000));
    },
  });
  return {
    onResult: (alert, result) => {
      deliveries.inc({ alert, result });
    },
    onBacklog: (alert, count, at) => {
      backlog.set({ alert }, count);
      if (at === undefined) oldest.set(alert, now());
      else oldest.set(alert, at);
    },
  };
}
