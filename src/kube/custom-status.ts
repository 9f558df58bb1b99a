/**
 * A namespaced custom resource's fresh GET and status PUT, shared by the Pipeline's and the
 * PromotionAlert's writers (each the one caller for its kind): a 409 (stale resourceVersion)
 * or 404 on the PUT is reported as a conflict, a 404 on the GET as gone.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { isConflict, isNotFound } from './errors.js';
import type { KubeObject, StatusAnswer } from './ports.js';
import type { KubeCalls } from './request-options.js';
import { resourceVersionOf } from './resource-version.js';
import type { ResourceCoordinates } from './resources.js';
import { KubeRest, resourcePath } from './rest.js';

/** GET and status PUT of one kind of custom object. */
export class CustomStatusClient {
  private readonly rest: KubeRest;

  constructor(
    kubeConfig: KubeConfig,
    calls: KubeCalls,
    private readonly resource: ResourceCoordinates,
  ) {
    this.rest = new KubeRest(kubeConfig, calls);
  }

  /**
   * PUT to the status subresource; a 409 or 404 is reported as a conflict, not thrown. With
   * `answer` 'version', the stored object is `object` with the answer's resourceVersion: a
   * status write changes nothing else the gateway reads (see resource-version.ts for why the
   * answer is not parsed), though a field the installed CRD does not know would be pruned by
   * the server and kept here until the watch brings the stored object. With 'stored', it is the
   * answer itself, parsed: what the CRD kept (a claim checks it held).
   */
  async putStatus(
    object: KubeObject,
    answer: StatusAnswer = 'version',
  ): Promise<{ conflict: false; value: KubeObject } | { conflict: true }> {
    const { name, namespace = '' } = object.metadata;
    const path = resourcePath(this.resource, namespace, name, 'status');
    try {
      const text = await this.rest.text('PUT', path, undefined, object);
      const resourceVersion = answer === 'version' ? resourceVersionOf(text) : undefined;
      // The whole answer when asked for it, or when it had no resourceVersion to take (never
      // from an API server).
      if (resourceVersion === undefined) {
        return { conflict: false, value: JSON.parse(text) as KubeObject };
      }
      const metadata = { ...object.metadata, resourceVersion };
      return { conflict: false, value: { ...object, metadata } };
    } catch (err) {
      if (isConflict(err) || isNotFound(err)) return { conflict: true };
      throw err;
    }
  }

  /** A fresh GET from the API server (never a cache); undefined when it is gone. */
  async get(namespace: string, name: string): Promise<KubeObject | undefined> {
    try {
      return (await this.rest.get(resourcePath(this.resource, namespace, name))) as KubeObject;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }
}
