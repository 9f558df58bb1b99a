/**
 * Request accounting for one cluster: every API request that reaches the cluster's listener is
 * counted once on arrival (before auth and fault injection), so injected failures count too.
 * Requests refused while the cluster is down never reach it and are not counted. Accepted
 * connections are counted apart (TLS: completed handshakes), so tests can see whether a client
 * reuses keep-alive connections or opens one per request.
 */
import type { Verb } from './request-info.js';
import { VERBS } from './request-info.js';

/** One counted resource request. */
export interface RequestRecord {
  verb: Verb;
  group: string;
  resource: string;
  namespace: string;
  name: string;
  subresource: string;
}

/** Filter for `count`: every given field must match exactly; `resource` may be `plural.group`. */
export type RequestFilter = Partial<RequestRecord>;

/** Aggregated counts. Keys of byResource are `plural` (core) or `plural.group`. */
export interface RequestSnapshot {
  /** Resource requests counted. */
  total: number;
  /** Discovery, /version and /openapi requests (kept apart so they do not blur API load). */
  nonResource: number;
  /** Connections accepted (with TLS: handshakes completed); requests / connections is reuse. */
  connections: number;
  byVerb: Record<Verb, number>;
  byResource: Record<string, number>;
  /** Keyed by namespace; '' is cluster-scoped or all-namespaces requests. */
  byNamespace: Record<string, number>;
  /** Keyed by `namespace/name` for requests that named an object. */
  byName: Record<string, number>;
  /** Every distinct request shape with its count. */
  entries: (RequestRecord & { count: number })[];
}

function keyOf(r: RequestRecord): string {
  return JSON.stringify([r.verb, r.group, r.resource, r.namespace, r.name, r.subresource]);
}

/** Counts requests by shape; cheap enough for benchmarks (one map update per request). */
export class RequestCounter {
  private readonly counts = new Map<string, { record: RequestRecord; count: number }>();
  private nonResourceCount = 0;
  private connectionCount = 0;

  /** Counts one resource request. */
  record(r: RequestRecord): void {
    const key = keyOf(r);
    const entry = this.counts.get(key);
    if (entry === undefined) this.counts.set(key, { record: { ...r }, count: 1 });
    else entry.count++;
  }

  /** Counts one non-resource request (discovery, version, openapi). */
  recordNonResource(): void {
    this.nonResourceCount++;
  }

  /** Counts one accepted connection (TLS: after its handshake completed). */
  recordConnection(): void {
    this.connectionCount++;
  }

  /** Connections accepted since the last reset. */
  connections(): number {
    return this.connectionCount;
  }

  /** How many resource requests matched `filter` (all when empty). */
  count(filter: RequestFilter = {}): number {
    let n = 0;
    for (const { record, count } of this.counts.values()) if (matches(record, filter)) n += count;
    return n;
  }

  /** Aggregated view of everything counted since the last reset. */
  snapshot(): RequestSnapshot {
    const byVerb = Object.fromEntries(VERBS.map((v) => [v, 0])) as Record<Verb, number>;
    const byResource: Record<string, number> = {};
    const byNamespace: Record<string, number> = {};
    const byName: Record<string, number> = {};
    const entries: (RequestRecord & { count: number })[] = [];
    let total = 0;
    for (const { record, count } of this.counts.values()) {
      total += count;
      byVerb[record.verb] += count;
      const res = record.group === '' ? record.resource : `${record.resource}.${record.group}`;
      byResource[res] = (byResource[res] ?? 0) + count;
      byNamespace[record.namespace] = (byNamespace[record.namespace] ?? 0) + count;
      if (record.name !== '') {
        const key = `${record.namespace}/${record.name}`;
        byName[key] = (byName[key] ?? 0) + count;
      }
      entries.push({ ...record, count });
    }
    return {
      total,
      nonResource: this.nonResourceCount,
      connections: this.connectionCount,
      byVerb,
      byResource,
      byNamespace,
      byName,
      entries,
    };
  }

  /** Forgets all counts. */
  reset(): void {
    this.counts.clear();
    this.nonResourceCount = 0;
    this.connectionCount = 0;
  }
}

function matches(r: RequestRecord, f: RequestFilter): boolean {
  if (f.verb !== undefined && f.verb !== r.verb) return false;
  if (f.namespace !== undefined && f.namespace !== r.namespace) return false;
  if (f.name !== undefined && f.name !== r.name) return false;
  if (f.subresource !== undefined && f.subresource !== r.subresource) return false;
  if (f.group !== undefined && f.group !== r.group) return false;
  if (f.resource !== undefined) {
    const dot = f.resource.indexOf('.');
    if (dot < 0) return f.resource === r.resource;
    return f.resource.slice(0, dot) === r.resource && f.resource.slice(dot + 1) === r.group;
  }
  return true;
}
