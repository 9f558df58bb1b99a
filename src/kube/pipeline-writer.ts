import { CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { isConflict, isNotFound } from './errors.js';
import type { KubeCalls } from './request-options.js';
import { PIPELINE } from './resources.js';
import type { EventRecord, KubeObject, PipelineWriter } from './ports.js';

/** The component name on Events we record, as a Kubernetes EventSource. */
export const EVENT_COMPONENT = 'promotion-gateway';

/** Pipeline reads and status writes in the management cluster, via client-node. */
export class KubePipelineWriter implements PipelineWriter {
  private readonly custom: CustomObjectsApi;
  private readonly core: CoreV1Api;

  constructor(
    kubeConfig: KubeConfig,
    private readonly calls: KubeCalls,
    private readonly instanceId: string,
  ) {
    this.custom = kubeConfig.makeApiClient(CustomObjectsApi);
    this.core = kubeConfig.makeApiClient(CoreV1Api);
  }

  /** PUT to the status subresource; a 409 (stale resourceVersion) is reported, not thrown. */
  async replaceStatus(
    pipeline: KubeObject,
  ): Promise<{ conflict: false; value: KubeObject } | { conflict: true }> {
    const { name, namespace = '' } = pipeline.metadata;
    try {
      const value = (await this.custom.replaceNamespacedCustomObjectStatus(
        { ...PIPELINE, namespace, name, body: pipeline },
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
        { ...PIPELINE, namespace, name },
        this.calls.options(),
      )) as KubeObject;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** Creates a core/v1 Event about the Pipeline, as a controller's event recorder would. */
  async emitEvent(event: EventRecord): Promise<void> {
    const now = new Date();
    const { involvedObject } = event;
    const suffix = `${now.getTime().toString(16)}${Math.floor(Math.random() * 0xffff).toString(16)}`;
    await this.core.createNamespacedEvent(
      {
        namespace: involvedObject.namespace,
        body: {
          apiVersion: 'v1',
          kind: 'Event',
          metadata: {
            name: `${involvedObject.name}.${suffix}`,
            namespace: involvedObject.namespace,
            ...(event.annotations ? { annotations: event.annotations } : {}),
          },
          involvedObject,
          type: event.type,
          reason: event.reason,
          message: event.message,
          source: { component: EVENT_COMPONENT, host: this.instanceId },
          reportingComponent: EVENT_COMPONENT,
          reportingInstance: this.instanceId,
          firstTimestamp: now,
          lastTimestamp: now,
          count: 1,
        },
      },
      this.calls.options(),
    );
  }
}
