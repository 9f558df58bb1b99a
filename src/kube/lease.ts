/**
 * Leases in the management cluster through client-node's CoordinationV1Api, for the resync's
 * leader election. Conflicts and failures are answered, never thrown, so the elector's loop
 * has no exception paths.
 */
import {
  CoordinationV1Api,
  V1MicroTime,
  type KubeConfig,
  type V1Lease,
  type V1LeaseSpec,
} from '@kubernetes/client-node';
import { classifyKubeError, isConflict, isNotFound } from './errors.js';
import type { KubeCalls } from './request-options.js';
import type {
  LeaseObject,
  LeaseSpec,
  LeaseStore,
  LeaseWriteResult,
  ObjectMeta,
  ReadResult,
} from './ports.js';

const LEASE_API_VERSION = 'coordination.k8s.io/v1';

/** LeaseStore over one KubeConfig (the management cluster's); every call times out. */
export class KubeLeaseStore implements LeaseStore {
  private readonly api: CoordinationV1Api;

  constructor(
    kubeConfig: KubeConfig,
    private readonly calls: KubeCalls,
  ) {
    this.api = kubeConfig.makeApiClient(CoordinationV1Api);
  }

  /** One GET; a 404 is an absent Lease, anything else that fails is classified. */
  async get(namespace: string, name: string): Promise<ReadResult<LeaseObject | undefined>> {
    try {
      const lease = await this.api.readNamespacedLease({ namespace, name }, this.calls.options());
      return { ok: true, value: fromLease(lease) };
    } catch (err) {
      if (isNotFound(err)) return { ok: true, value: undefined };
      const { reason, message } = classifyKubeError(err);
      return { ok: false, reason, message };
    }
  }

  /** POST; a 409 (AlreadyExists: another replica created it first) is a conflict. */
  async create(lease: LeaseObject): Promise<LeaseWriteResult> {
    const namespace = lease.metadata.namespace ?? '';
    return this.write(() =>
      this.api.createNamespacedLease({ namespace, body: toLease(lease) }, this.calls.options()),
    );
  }

  /** PUT with metadata.resourceVersion as precondition; a 409 is a conflict. */
  async replace(lease: LeaseObject): Promise<LeaseWriteResult> {
    const { name, namespace = '' } = lease.metadata;
    return this.write(() =>
      this.api.replaceNamespacedLease(
        { namespace, name, body: toLease(lease) },
        this.calls.options(),
      ),
    );
  }

  private async write(call: () => Promise<V1Lease>): Promise<LeaseWriteResult> {
    try {
      return { ok: true, value: fromLease(await call()) };
    } catch (err) {
      if (isConflict(err)) return { ok: false, conflict: true };
      const { reason, message } = classifyKubeError(err);
      return { ok: false, conflict: false, reason, message };
    }
  }
}

function toLease(lease: LeaseObject): V1Lease {
  const { spec } = lease;
  const body: V1LeaseSpec = {
    holderIdentity: spec.holderIdentity,
    leaseDurationSeconds: spec.leaseDurationSeconds,
    leaseTransitions: spec.leaseTransitions,
    acquireTime: toMicroTime(spec.acquireTime),
    renewTime: toMicroTime(spec.renewTime),
  };
  const { name, namespace, uid, resourceVersion, labels, annotations } = lease.metadata;
  return {
    apiVersion: LEASE_API_VERSION,
    kind: 'Lease',
    metadata: { name, namespace, uid, resourceVersion, labels, annotations },
    spec: body,
  };
}

// V1MicroTime serializes with six fractional digits, as the API server expects for MicroTime.
function toMicroTime(value: string | undefined): V1MicroTime | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : new V1MicroTime(ms);
}

function fromLease(lease: V1Lease): LeaseObject {
  const meta = lease.metadata ?? {};
  const metadata: ObjectMeta = { name: meta.name ?? '' };
  if (meta.namespace !== undefined) metadata.namespace = meta.namespace;
  if (meta.uid !== undefined) metadata.uid = meta.uid;
  if (meta.resourceVersion !== undefined) metadata.resourceVersion = meta.resourceVersion;
  if (meta.labels !== undefined) metadata.labels = meta.labels;
  if (meta.annotations !== undefined) metadata.annotations = meta.annotations;
  const spec = lease.spec ?? {};
  const out: LeaseSpec = {};
  if (spec.holderIdentity !== undefined) out.holderIdentity = spec.holderIdentity;
  if (spec.leaseDurationSeconds !== undefined) out.leaseDurationSeconds = spec.leaseDurationSeconds;
  if (spec.leaseTransitions !== undefined) out.leaseTransitions = spec.leaseTransitions;
  const acquireTime = fromMicroTime(spec.acquireTime);
  if (acquireTime !== undefined) out.acquireTime = acquireTime;
  const renewTime = fromMicroTime(spec.renewTime);
  if (renewTime !== undefined) out.renewTime = renewTime;
  return { metadata, spec: out };
}

/**
 * client-node 1.x types MicroTime as a Date but, having no deserializer for it, hands over
 * the server's string; accept both so an upgrade that fixes this changes nothing here.
 */
function fromMicroTime(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value instanceof Date && !Number.isNaN(value.getTime())) {
    return new V1MicroTime(value.getTime()).toISOString();
  }
  return undefined;
}
