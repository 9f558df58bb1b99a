/**
 * Leases in the management cluster, for the resync's leader election. Conflicts and failures
 * are answered, never thrown, so the elector's loop has no exception paths.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { classifyKubeError, isConflict, isNotFound } from './errors.js';
import type { KubeCalls } from './request-options.js';
import { LEASE } from './resources.js';
import { KubeRest, resourcePath } from './rest.js';
import type {
  LeaseObject,
  LeaseSpec,
  LeaseStore,
  LeaseWriteResult,
  ObjectMeta,
  ReadResult,
} from './ports.js';

const LEASE_API_VERSION = 'coordination.k8s.io/v1';

/** A Lease as the API server sends and takes it (the fields the gateway reads). */
interface WireLease {
  metadata?: ObjectMeta;
  spec?: LeaseSpec;
}

/** LeaseStore over one KubeConfig (the management cluster's); every call times out. */
export class KubeLeaseStore implements LeaseStore {
  private readonly rest: KubeRest;

  constructor(kubeConfig: KubeConfig, calls: KubeCalls) {
    this.rest = new KubeRest(kubeConfig, calls);
  }

  /** One GET; a 404 is an absent Lease, anything else that fails is classified. */
  async get(namespace: string, name: string): Promise<ReadResult<LeaseObject | undefined>> {
    try {
      const lease = (await this.rest.get(resourcePath(LEASE, namespace, name))) as WireLease;
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
    return this.write(() => this.rest.send('POST', resourcePath(LEASE, namespace), toLease(lease)));
  }

  /** PUT with metadata.resourceVersion as precondition; a 409 is a conflict. */
  async replace(lease: LeaseObject): Promise<LeaseWriteResult> {
    const { name, namespace = '' } = lease.metadata;
    return this.write(() =>
      this.rest.send('PUT', resourcePath(LEASE, namespace, name), toLease(lease)),
    );
  }

  private async write(call: () => Promise<unknown>): Promise<LeaseWriteResult> {
    try {
      return { ok: true, value: fromLease((await call()) as WireLease) };
    } catch (err) {
      if (isConflict(err)) return { ok: false, conflict: true };
      const { reason, message } = classifyKubeError(err);
      return { ok: false, conflict: false, reason, message };
    }
  }
}

function toLease(lease: LeaseObject): WireLease & { apiVersion: string; kind: string } {
  const { spec } = lease;
  const body: LeaseSpec = {
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

/** A MicroTime as the API server expects it: RFC 3339 with six fractional digits. */
export function toMicroTime(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : `${new Date(ms).toISOString().slice(0, -1)}000Z`;
}

function fromLease(lease: WireLease): LeaseObject {
  const meta: Partial<ObjectMeta> = lease.metadata ?? {};
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

/** The server's MicroTime string, or undefined for anything else. */
function fromMicroTime(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
