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
  | 'UnsupportedKind'
  /** The API server's TLS certificate was not accepted (expired, another CA, another name). */
  | 'CertificateRejected';

/** The outcome of one read: the object, or a classified failure with a secret-free message. */
export type ReadResult<T = KubeObject> =
  { ok: true; value: T } | { ok: false; reason: ReadFailureReason; message: string };

/** Reads application objects (HelmRelease, Kustomization) from one cluster. */
export interface ObjectReader {
  /** One GET of the named object. */
  get(ref: ObjectRef): Promise<ReadResult>;
  /**
   * One LIST of every object of apiVersion/kind in `namespace` (every namespace when undefined),
   * read in pages that `visit` sees as they arrive and may then drop. Resolves to the number of
   * objects listed, or the failure (after which the pages already visited must be ignored).
   */
  list(
    apiVersion: string,
    kind: string,
    namespace: string | undefined,
    visit: PageVisitor,
  ): Promise<ReadResult<number>>;
}

/** Sees one page of a LIST (apiVersion and kind restored on every item). */
export type PageVisitor = (items: readonly KubeObject[]) => void;

/** Resolves a cluster name to a reader built from that cluster's own credentials. */
export interface ClusterDirectory {
  /** The reader for a cluster, or undefined when the gateway has no credentials for it. */
  reader(cluster: string): ObjectReader | undefined;
  /** Names of every cluster the gateway can currently read. */
  clusters(): string[];
  /** Why a cluster has no reader (secret-free), or undefined when it has one. */
  problem(cluster: string): string | undefined;
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

/**
 * What a status write resolves to: 'version', the object sent with the new resourceVersion
 * (the answer scanned, not parsed: most writes); 'stored', the answer parsed, which shows what
 * the installed CRD kept (for writes whose loss would matter, such as a claim).
 */
export type StatusAnswer = 'version' | 'stored';

/** Conflict-aware writes to Pipelines in the management cluster. */
export interface PipelineWriter {
  /**
   * Replace the status subresource; `resourceVersion` in metadata is the precondition.
   * Resolves to the stored object (`answer` 'version': the object sent with the answer's
   * resourceVersion; 'stored': the API server's answer itself, as its CRD kept it), or
   * `{ conflict: true }` on a 409.
   */
  replaceStatus(
    pipeline: KubeObject,
    answer?: StatusAnswer,
  ): Promise<{ conflict: false; value: KubeObject } | { conflict: true }>;
  /** Fresh GET of a Pipeline (never a cache), or undefined when it no longer exists. */
  get(namespace: string, name: string): Promise<KubeObject | undefined>;
  /** Record a Kubernetes Event in the Pipeline's namespace. */
  emitEvent(event: EventRecord): Promise<void>;
}

/** Conflict-aware status writes to PromotionAlerts in the management cluster. */
export interface AlertWriter {
  /**
   * Replace the status subresource; `resourceVersion` in metadata is the precondition.
   * Resolves to the stored object, or `{ conflict: true }` on a 409 (or a 404: it is gone).
   */
  replaceAlertStatus(
    alert: KubeObject,
  ): Promise<{ conflict: false; value: KubeObject } | { conflict: true }>;
  /** Fresh GET of a PromotionAlert (never a cache), or undefined when it no longer exists. */
  getAlert(namespace: string, name: string): Promise<KubeObject | undefined>;
}

/** Conflict-aware status writes to PromotionTrains in the management cluster. */
export interface TrainWriter {
  /**
   * Replace the status subresource; `resourceVersion` in metadata is the precondition.
   * Resolves to the stored object, or `{ conflict: true }` on a 409 (or a 404: it is gone).
   */
  replaceTrainStatus(
    train: KubeObject,
  ): Promise<{ conflict: false; value: KubeObject } | { conflict: true }>;
  /** Fresh GET of a PromotionTrain (never a cache), or undefined when it no longer exists. */
  getTrain(namespace: string, name: string): Promise<KubeObject | undefined>;
}

/** A Secret as read: its resourceVersion (what a cache keys on) and its keys' decoded bytes. */
export interface SecretObject {
  resourceVersion: string;
  data: Readonly<Record<string, Buffer>>;
}

/** Reads whole Secrets in the management cluster (never a list: RBAC grants only `get`). */
export interface SecretReader {
  /** One GET; `value` is undefined when the Secret does not exist. */
  get(namespace: string, name: string): Promise<ReadResult<SecretObject | undefined>>;
}

/**
 * The leader-election fields of a coordination.k8s.io/v1 Lease. Times are MicroTime strings
 * (RFC 3339 with microseconds, `2026-11-21T10:00:00.000000Z`), as the API server serves them.
 */
export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

/** A Lease as stored; `metadata.resourceVersion` is the precondition of the next replace. */
export interface LeaseObject {
  metadata: ObjectMeta;
  spec: LeaseSpec;
}

/**
 * The outcome of a Lease write: the stored Lease, a lost race (409: another writer was first,
 * or the Lease already exists) or a classified failure with a secret-free message.
 */
export type LeaseWriteResult =
  | { ok: true; value: LeaseObject }
  | { ok: false; conflict: true }
  | { ok: false; conflict: false; reason: ReadFailureReason; message: string };

/** Conflict-aware reads and writes of Leases in the management cluster (leader election). */
export interface LeaseStore {
  /** One GET; `value` is undefined when the Lease does not exist. */
  get(namespace: string, name: string): Promise<ReadResult<LeaseObject | undefined>>;
  /** Creates the Lease named in `lease.metadata`; an existing one is a conflict. */
  create(lease: LeaseObject): Promise<LeaseWriteResult>;
  /** Replaces the Lease; `metadata.resourceVersion` is the precondition (409 = conflict). */
  replace(lease: LeaseObject): Promise<LeaseWriteResult>;
}
