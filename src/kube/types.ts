/**
 * The narrow view of Kubernetes the gateway needs. Everything above src/kube talks to these
 * interfaces, never to @kubernetes/client-node, so unit tests use small in-memory fakes.
 */

/** Object metadata fields the gateway reads or writes. */
export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** Any Kubernetes object as JSON. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

/** What to read: a namespaced object of a given apiVersion/kind. */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
}

/** Why a read failed, in the terms the status and logs use (PascalCase, like Status reasons). */
export type ReadFailureReason =
  | 'NotFound'
  | 'Unauthorized'
  | 'Forbidden'
  | 'ServerError'
  | 'Unavailable'
  | 'Timeout'
  | 'UnknownCluster'
  | 'UnsupportedKind';

/** The outcome of one read: the object, or a classified failure with a secret-free message. */
export type ReadResult<T = KubeObject> =
  { ok: true; value: T } | { ok: false; reason: ReadFailureReason; message: string };

/** Reads application objects (HelmRelease, Kustomization) from one cluster. */
export interface ObjectReader {
  /** One GET of the named object. */
  get(ref: ObjectRef): Promise<ReadResult>;
  /** One LIST of every object of apiVersion/kind in a namespace. */
  list(apiVersion: string, kind: string, namespace: string): Promise<ReadResult<KubeObject[]>>;
}

/** Resolves a cluster name to a reader built from that cluster's own credentials. */
export interface ClusterDirectory {
  /** The reader for a cluster, or undefined when the gateway has no credentials for it. */
  reader(cluster: string): ObjectReader | undefined;
  /** Names of every cluster the gateway can currently read. */
  clusters(): string[];
}

/** A Kubernetes Event to record on an object (core/v1 Event). */
export interface EventRecord {
  involvedObject: {
    apiVersion: string;
    kind: string;
    namespace: string;
    name: string;
    uid?: string;
  };
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  annotations?: Record<string, string>;
}

/** Conflict-aware writes to Pipelines in the management cluster. */
export interface PipelineWriter {
  /**
   * Replace the status subresource; `resourceVersion` in metadata is the precondition.
   * Resolves to the stored object, or `{ conflict: true }` on a 409.
   */
  replaceStatus(
    pipeline: KubeObject,
  ): Promise<{ conflict: false; value: KubeObject } | { conflict: true }>;
  /** Fresh GET of a Pipeline (never a cache), or undefined when it no longer exists. */
  get(namespace: string, name: string): Promise<KubeObject | undefined>;
  /** Record a Kubernetes Event in the Pipeline's namespace. */
  emitEvent(event: EventRecord): Promise<void>;
}
