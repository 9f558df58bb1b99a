/**
 * Prometheus metrics, one Registry per gateway instance (never prom-client's global default),
 * so several gateways can share a process in tests. Label values are always bounded: route
 * patterns rather than URLs, fixed outcome words, and cluster names only from configuration.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** What became of one inbound Flux event. */
export type EventOutcome = 'accepted' | 'ignored' | 'unauthenticated' | 'invalid' | 'full';

/** The label a cluster name that is not configured is counted under. */
export const OTHER_CLUSTER = '_other';

/** The gateway's metrics and the registry that exposes them. */
export interface GatewayMetrics {
  readonly registry: Registry;
  /** HTTP requests answered, by method, route pattern (or `_unmatched`) and status code. */
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  /** HTTP request duration in seconds, by method and route pattern. */
  readonly httpDuration: Histogram<'method' | 'route'>;
  /** Flux events received on /v1/events/{cluster}, by EventOutcome. */
  readonly eventsReceived: Counter<'outcome'>;
  /** Hints offered to the queue, by HintSource and EnqueueResult; counted by the queue itself. */
  readonly hints: Counter<'source' | 'result'>;
  /** Reads of application objects, by configured cluster (see clusterLabel) and result. */
  readonly clusterReads: Counter<'cluster' | 'result'>;
  /** Promotion attempts, by outcome (e.g. claimed, succeeded, failed, conflict). */
  readonly promotions: Counter<'outcome'>;
  /** Duration of full resync passes in seconds, by result (ok, partial, error). */
  readonly resyncDuration: Histogram<'result'>;
  /** Hints currently waiting in the queue. */
  readonly queueDepth: Gauge;
  /** 1 while this replica runs the periodic resync (it holds the Lease, or election is off). */
  readonly resyncLeader: Gauge;
  /** The `cluster` label value for a name: itself when configured, else OTHER_CLUSTER. */
  clusterLabel(name: string): string;
  /** Counts one answered HTTP request in httpRequests and httpDuration. */
  observeHttp(method: string, route: string, status: number, seconds: number): void;
}

/** Options for createMetrics. */
export interface MetricsOptions {
  /** Cluster names that may appear as label values (configured clusters + management). */
  clusters?: readonly string[];
  /** Also collect Node.js process metrics (default true). */
  defaultMetrics?: boolean;
}

/** A fresh registry with every gateway metric registered on it. */
export function createMetrics(options: MetricsOptions = {}): GatewayMetrics {
  const registry = new Registry();
  const registers = [registry];
  const known = new Set(options.clusters ?? []);
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });

  const httpRequests = new Counter({
    name: 'promotion_gateway_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status'] as const,
    registers,
  });
  const httpDuration = new Histogram({
    name: 'promotion_gateway_http_request_duration_seconds',
    help: 'HTTP request duration in seconds, by method and route pattern.',
    labelNames: ['method', 'route'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers,
  });
  return {
    registry,
    httpRequests,
    httpDuration,
    observeHttp: httpObserver(httpRequests, httpDuration),
    eventsReceived: new Counter({
      name: 'promotion_gateway_events_received_total',
      help: 'Flux events received, by outcome.',
      labelNames: ['outcome'] as const,
      registers,
    }),
    hints: new Counter({
      name: 'promotion_gateway_hints_total',
      help: 'Hints offered to the queue, by source and result.',
      labelNames: ['source', 'result'] as const,
      registers,
    }),
    clusterReads: new Counter({
      name: 'promotion_gateway_cluster_reads_total',
      help: 'Reads of application objects from clusters, by cluster and result.',
      labelNames: ['cluster', 'result'] as const,
      registers,
    }),
    promotions: new Counter({
      name: 'promotion_gateway_promotions_total',
      help: 'Promotion attempts, by outcome.',
      labelNames: ['outcome'] as const,
      registers,
    }),
    resyncDuration: new Histogram({
      name: 'promotion_gateway_resync_duration_seconds',
      help: 'Duration of full resync passes in seconds, by result.',
      labelNames: ['result'] as const,
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers,
    }),
    queueDepth: new Gauge({
      name: 'promotion_gateway_hint_queue_depth',
      help: 'Hints currently waiting in the queue.',
      registers,
    }),
    resyncLeader: new Gauge({
      name: 'promotion_gateway_resync_leader',
      help: '1 while this replica runs the periodic resync (it holds the resync Lease), else 0.',
      registers,
    }),
    clusterLabel: (name) => (known.has(name) ? name : OTHER_CLUSTER),
  };
}

/** One (method, route, status)'s bound metric children. */
interface HttpSeries {
  requests: { inc(): void };
  duration: { observe(value: number): void };
}

/**
 * observeHttp: prom-client hashes a labels object on every inc/observe, which showed in the
 * hot path's profile; the bound children are looked up once per (method, route, status)
 * instead. The cache is bounded like the metric itself: route patterns, HTTP methods the
 * server parses, and status codes.
 */
function httpObserver(
  requests: Counter<'method' | 'route' | 'status'>,
  duration: Histogram<'method' | 'route'>,
): GatewayMetrics['observeHttp'] {
  const series = new Map<string, HttpSeries>();
  return (method, route, status, seconds) => {
    const id = `${method} ${status} ${route}`;
    let bound = series.get(id);
    if (bound === undefined) {
      bound = {
        requests: requests.labels({ method, route, status: String(status) }),
        duration: duration.labels({ method, route }),
      };
      series.set(id, bound);
    }
    bound.requests.inc();
    bound.duration.observe(seconds);
  };
}
