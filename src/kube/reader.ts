import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { classifyKubeError } from './errors.js';
import type { KubeCalls } from './request-options.js';
import { coordinatesFor } from './resources.js';
import type { KubeObject, ObjectReader, ObjectRef, ReadResult } from './types.js';

/** Reads app objects from one cluster with client-node, each call bounded by a timeout. */
export class KubeObjectReader implements ObjectReader {
  private readonly api: CustomObjectsApi;

  constructor(
    kubeConfig: KubeConfig,
    private readonly calls: KubeCalls,
  ) {
    this.api = kubeConfig.makeApiClient(CustomObjectsApi);
  }

  /** One GET of the object; failures are classified, never thrown. */
  async get(ref: ObjectRef): Promise<ReadResult> {
    const coords = coordinatesFor(ref.apiVersion, ref.kind);
    if (coords === undefined) return unsupported(ref.kind);
    try {
      const value = (await this.api.getNamespacedCustomObject(
        { ...coords, namespace: ref.namespace, name: ref.name },
        this.calls.options(),
      )) as KubeObject;
      return { ok: true, value };
    } catch (err) {
      return { ok: false, ...classifyKubeError(err) };
    }
  }

  /** One LIST of the kind in a namespace; failures are classified, never thrown. */
  async list(
    apiVersion: string,
    kind: string,
    namespace: string,
  ): Promise<ReadResult<KubeObject[]>> {
    const coords = coordinatesFor(apiVersion, kind);
    if (coords === undefined) return unsupported(kind);
    try {
      const list = (await this.api.listNamespacedCustomObject(
        { ...coords, namespace },
        this.calls.options(),
      )) as { items?: KubeObject[] };
      // LIST items carry no apiVersion/kind on the wire; restore them for the readers above.
      const items = (list.items ?? []).map((item) => ({ ...item, apiVersion, kind }));
      return { ok: true, value: items };
    } catch (err) {
      return { ok: false, ...classifyKubeError(err) };
    }
  }
}

function unsupported(kind: string): { ok: false; reason: 'UnsupportedKind'; message: string } {
  return { ok: false, reason: 'UnsupportedKind', message: `kind ${kind} is not supported` };
}
