import type { KubeConfig } from '@kubernetes/client-node';
import { CustomStatusClient } from './custom-status.js';
import type { KubeCalls } from './request-options.js';
import { EVENT, PIPELINE } from './resources.js';
import { KubeRest, resourcePath } from './rest.js';
import type { EventRecord, KubeObject, PipelineWriter, StatusAnswer } from './ports.js';

/** The component name on Events we record, as a Kubernetes EventSource. */
export const EVENT_COMPONENT = 'promotion-gateway';

/** Pipeline reads and status writes, and Events, in the management cluster. */
export class KubePipelineWriter implements PipelineWriter {
  private readonly pipelines: CustomStatusClient;
  private readonly rest: KubeRest;

  constructor(
    kubeConfig: KubeConfig,
    calls: KubeCalls,
    private readonly instanceId: string,
  ) {
    this.pipelines = new CustomStatusClient(kubeConfig, calls, PIPELINE);
    this.rest = new KubeRest(kubeConfig, calls);
  }

  /** PUT to the status subresource; a 409 (stale resourceVersion) is reported, not thrown. */
  replaceStatus(
    pipeline: KubeObject,
    answer?: StatusAnswer,
  ): Promise<{ conflict: false; value: KubeObject } | { conflict: true }> {
    return this.pipelines.putStatus(pipeline, answer);
  }

  /** A fresh GET from the API server (never a cache); undefined when it is gone. */
  get(namespace: string, name: string): Promise<KubeObject | undefined> {
    return this.pipelines.get(namespace, name);
  }

  /** Creates a core/v1 Event about the Pipeline, as a controller's event recorder would. */
  async emitEvent(event: EventRecord): Promise<void> {
    const now = new Date().toISOString();
    const { involvedObject } = event;
    const suffix = `${Date.parse(now).toString(16)}${Math.floor(Math.random() * 0xffff).toString(16)}`;
    await this.rest.send('POST', resourcePath(EVENT, involvedObject.namespace), {
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
    });
  }
}
