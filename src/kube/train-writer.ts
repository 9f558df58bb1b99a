/** PromotionTrain reads and status writes in the management cluster (the TrainWriter port). */
import type { KubeConfig } from '@kubernetes/client-node';
import { CustomStatusClient } from './custom-status.js';
import type { KubeCalls } from './request-options.js';
import { PROMOTION_TRAIN } from './resources.js';
import type { KubeObject, TrainWriter } from './ports.js';

/** PromotionTrain reads and status writes through the status subresource. */
export class KubeTrainWriter implements TrainWriter {
  private readonly trains: CustomStatusClient;

  constructor(kubeConfig: KubeConfig, calls: KubeCalls) {
    this.trains = new CustomStatusClient(kubeConfig, calls, PROMOTION_TRAIN);
  }

  /** PUT to the status subresource; a 409 (stale resourceVersion) or 404 is reported, not thrown. */
  replaceTrainStatus(
    train: KubeObject,
  ): Promise<{ conflict: false; value: KubeObject } | { conflict: true }> {
    return this.trains.putStatus(train);
  }

  /** A fresh GET from the API server (never a cache); undefined when it is gone. */
  getTrain(namespace: string, name: string): Promise<KubeObject | undefined> {
    return this.trains.get(namespace, name);
  }
}
