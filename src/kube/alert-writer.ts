import type { KubeConfig } from '@kubernetes/client-node';
import { CustomStatusClient } from './custom-status.js';
import type { KubeCalls } from './request-options.js';
import { PROMOTION_ALERT } from './resources.js';
import type { AlertWriter, KubeObject } from './ports.js';

/** PromotionAlert reads and status writes in the management cluster. */
export class KubeAlertWriter implements AlertWriter {
  private readonly alerts: CustomStatusClient;

  constructor(kubeConfig: KubeConfig, calls: KubeCalls) {
    this.alerts = new CustomStatusClient(kubeConfig, calls, PROMOTION_ALERT);
  }

  /** PUT to the status subresource; a 409 (stale resourceVersion) or 404 is reported, not thrown. */
  replaceAlertStatus(
    alert: KubeObject,
  ): Promise<{ conflict: false; value: KubeObject } | { conflict: true }> {
    return this.alerts.putStatus(alert);
  }

  /** A fresh GET from the API server (never a cache); undefined when it is gone. */
  getAlert(namespace: string, name: string): Promise<KubeObject | undefined> {
    return this.alerts.get(namespace, name);
  }
}
