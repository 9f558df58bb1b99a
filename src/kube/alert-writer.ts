import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { isConflict, isNotFound } from './errors.js';
import type { KubeCalls } from './request-options.js';
import { PROMOTION_ALERT } from './resources.js';
import type { AlertWriter, KubeObject } from './ports.js';

/** PromotionAlert reads and status writes in the management cluster, via client-node. */
export class KubeAlertWriter implements AlertWriter {
  private readonly custom: CustomObjectsApi;

  constructor(
    kubeConfig: KubeConfig,
    private readonly calls: KubeCalls,
  ) {
    this.custom = kubeConfig.makeApiClient(CustomObjectsApi);
  }

  /** PUT to the status subresource; a 409 (stale resourceVersion) or 404 is reported, not thrown. */
  async replaceAlertStatus(
    alert: KubeObject,
  ): Promise<{ conflict: false; value: KubeObject } | { conflict: true }> {
    const { name, namespace = '' } = alert.metadata;
    try {
      const value = (await this.custom.replaceNamespacedCustomObjectStatus(
        { ...PROMOTION_ALERT, namespace, name, body: alert },
        this.calls.options(),
      )) as KubeObject;
      return { conflict: false, value };
    } catch (err) {
      if (isConflict(err) || isNotFound(err)) return { conflict: true };
      throw err;
    }
  }

  /** A fresh GET from the API server (never a cache); undefined when it is gone. */
  async getAlert(namespace: string, name: string): Promise<KubeObject | undefined> {
    try {
      return (await this.custom.getNamespacedCustomObject(
        { ...PROMOTION_ALERT, namespace, name },
        this.calls.options(),
      )) as KubeObject;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }
}
