/**
 * A namespaced custom resource's fresh GET and status PUT through client-node, shared by the
 * Pipeline's and the PromotionAlert's writers (each the one caller for its kind): a 409 (stale
 * resourceVersion) or 404 on the PUT is reported as a conflict, a 404 on the GET as gone.
 */
import { CustomObjectsApi, ResponseContext, type KubeConfig } from '@kubernetes/client-node';
import { isConflict, isNotFound } from './errors.js';
import type { KubeObject, StatusAnswer } from './ports.js';
import { answerMiddleware, type KubeCalls } from './request-options.js';
import { resourceVersionOf } from './resource-version.js';
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
    try {
      const stored = (await this.custom.replaceNamespacedCustomObjectStatus(
        { ...this.resource, namespace, name, body: object },
        answer === 'stored' ? this.calls.options() : this.calls.options(VERSION_ONLY),
      )) as Partial<KubeObject>;
      // The whole answer when asked for it, or when it had no resourceVersion to take (never
      // from an API server).
      if (stored.kind !== undefined || stored.metadata === undefined) {
        return { conflict: false, value: stored as KubeObject };
      }
      const metadata = { ...object.metadata, resourceVersion: stored.metadata.resourceVersion };
      return { conflict: false, value: { ...object, metadata } };
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

/**
 * Replaces a successful answer's body by `{"metadata":{"resourceVersion":...}}` (no `kind`),
 * scanned from its text; an answer without one, or an error, passes as it came.
 */
const VERSION_ONLY = answerMiddleware(versionOnly);

async function versionOnly(response: ResponseContext): Promise<ResponseContext> {
  const code = response.httpStatusCode;
  if (code < 200 || code > 299) return response;
  const text = await response.body.text();
  const resourceVersion = resourceVersionOf(text);
  const body =
    resourceVersion === undefined ? text : JSON.stringify({ metadata: { resourceVersion } });
  return new ResponseContext(code, response.headers, {
    text: () => Promise.resolve(body),
    binary: () => Promise.resolve(Buffer.from(body)),
  });
}
