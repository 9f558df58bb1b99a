/**
 * Request accounting for one cluster: every API request that reaches the cluster's listener is
 * counted once on arrival (before auth and fault injection), so injected failures count too.
 * Requests refused while the cluster is down never reach it and are not counted. Accepted
 * connections are counted apart (TLS: completed handshakes), so tests can see whether a client
 * reuses keep-alive connections or opens one per request.
 */
import { ShapeCounter } from 'sim-kit';
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
  private readonly shapes = new ShapeCounter<RequestRecord>(keyOf);
  private nonResourceCount = 0;
  private connectionCount = 0;

  /** Counts one resource request. */
  record(r: RequestRecord): void {
    this.shapes.record(r);
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
    return this.shapes.count((record) => matches(record, filter));
  }

  /** Aggregated view of everything counted since the last reset. */
  snapshot(): RequestSnapshot {
    const zeros = Object.fromEntries(VERBS.map((v) => [v, 0])) as Record<Verb, number>;
    return {
      total: this.shapes.count(),
      nonResource: this.nonResourceCount,
      connections: this.connectionCount,
      byVerb: this.shapes.tally((r) => r.verb, zeros),
      byResource: this.shapes.tally((r) =>
        r.group === '' ? r.resource : `${r.resource}.${r.group}`,
      ),
      byNamespace: this.shapes.tally((r) => r.namespace),
      byName: this.shapes.tally((r) => (r.name === '' ? undefined : `${r.namespace}/${r.name}`)),
      entries: this.shapes.entries(),
    };
  }

  /** Forgets all counts. */
  reset(): void {
    this.shapes.reset();
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
