/**
 * A namespaced custom resource's fresh GET and status PUT through client-node, shared by the
 * Pipeline's and the PromotionAlert's writers (each the one caller for its kind): a 409 (stale
 * resourceVersion) or 404 on the PUT is reported as a conflict, a 404 on the GET as gone.
 */
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { isConflict, isNotFound } from './errors.js';
import type { KubeObject } from './ports.js';
import type { KubeCalls } from './request-options.js';
import type { ResourceCoordinates } from './resources.js';

/** GET and status PUT of one kind of custom object. */
export class CustomStatusClient {
  private readonly custom: CustomObjectsApi;

  constructor(
    kubeConfig: KubeConfig,
    private readonly calls: KubeCalls,
    private readonly resource: ResourceCoordinates,
  ) {
    this.custom = kubeConfig.makeApiClient(CustomObjectsApi);
  }

  /** PUT to the status subresource; a 409 or 404 is reported as a conflict, not thrown. */
  async putStatus(
    object: KubeObject,
  ): Promise<{ conflict: false; value: KubeObject } | { conflict: true }> {
    const { name, namespace = '' } = object.metadata;
    try {
      const value = (await this.custom.replaceNamespacedCustomObjectStatus(
        { ...this.resource, namespace, name, body: object },
        this.calls.options(),
      )) as KubeObject;
      return { conflict: false, value };
    } catch (err) {
      if (isConflict(err) || isNotFound(err)) return { conflict: true };
      throw err;
    }
  }

  /** A fresh GET from the API server (never a cache); undefined when it is gone. */
  async get(namespace: string, name: string): Promise<KubeObject | undefined> {
    try {
      return (await this.custom.getNamespacedCustomObject(
        { ...this.resource, namespace, name },
        this.calls.options(),
      )) as KubeObject;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }
}
