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
  /** Authorizations (approvals, rejections, CI triggers), by principal kind and outcome. */
  readonly authorizations: Counter<'kind' | 'outcome'>;
  /** Refused credentials, by door (route group) and reason (src/auth/refusal.ts). */
  readonly refusals: Counter<'door' | 'reason'>;
  /** Promotion attempts, by outcome (e.g. claimed, succeeded, failed, conflict). */
  readonly promotions: Counter<'outcome'>;
  /** Promotions that ran which a shadow gate would have held, by gate and the gate's name. */
  readonly shadowHolds: Counter<'gate' | 'name'>;
  /** Pipeline status write attempts, by result (written, conflict, unchanged, contended). */
  readonly statusWrites: Counter<'result'>;
  /** Duration of full resync passes in seconds, by result (ok, partial, error). */
  readonly resyncDuration: Histogram<'result'>;
  /** Hints currently waiting in the queue (read from the queue at scrape time). */
  readonly queueDepth: Gauge;
  /** Pipelines loaded and distinct objects they reference (read at scrape time). */
  readonly catalogSize: Gauge<'what'>;
  /** Stop-the-line halts in force in the loaded Pipelines' status, by scope (at scrape time). */
  readonly haltsInForce: Gauge<'scope'>;
  /**
   * 1 while this replica runs the periodic resync (it holds the Lease, or election is off), by
   * the shard it serves ('' when unsharded): alert per shard on its sum being 0.
   */
  readonly resyncLeader: Gauge<'shard'>;
  /** The configured resync interval in seconds, so an alert can compare a pass's duration to it. */
  readonly resyncInterval: Gauge;
  /** Changes a resync pass found that no event announced, by cluster, namespace and kind. */
  readonly unannouncedChanges: Counter<'cluster' | 'namespace' | 'kind'>;
  /** Where the scrape-time gauges read their values; until bound they read 0. */
  bindSources(sources: MetricSources): void;
  /** The `cluster` label value for a name: itself when configured, else OTHER_CLUSTER. */
  clusterLabel(name: string): string;
  /** Counts one answered HTTP request in httpRequests and httpDuration. */
  observeHttp(method: string, route: string, status: number, seconds: number): void;
  /** Counts one read of an application object in clusterReads. */
  observeRead(cluster: string, result: string): void;
  /** Records one resync pass in resyncDuration (`partial` when some target was Unknown). */
  observeResync(report: { unknown: number; durationMs: number }): void;
  /** Counts one unannounced change (cluster through clusterLabel) in unannouncedChanges. */
  observeUnannounced(cluster: string, kind: string): void;
}

/** The live values behind the scrape-time gauges. */
export interface MetricSources {
  hintQueueDepth(): number;
  pipelines(): number;
  referencedObjects(): number;
  /** Halts in force, each Pipeline's counted: of one environment, or of a whole Pipeline. */
  halts?(): { environment: number; pipeline: number };
  /** Whether this replica is ready (its /readyz answers 200). */
  ready?(): boolean;
  /** Claims in the loaded Pipelines' status still Claimed past their deadline. */
  claimsPastDeadline?(): number;
}

/** Options for createMetrics. */
export interface MetricsOptions {
  /** Cluster names that may appear as label values (configured clusters + management). */
  clusters?: readonly string[];
  /** Also collect Node.js process metrics (default true). */
  defaultMetrics?: boolean;
}

/** The scrape-time gauges, reading whatever sources are bound last. */
function sourceGauges(registers: Registry[]) {
  let sources: MetricSources = { hintQueueDepth: zero, pipelines: zero, referencedObjects: zero };
  const depth = () => sources.hintQueueDepth();
  const queueDepth = scrapeGauge(
    registers,
    'hint_queue_depth',
    'Hints waiting in the queue.',
    depth,
  );
  const catalogSize = new Gauge({
    name: 'promotion_gateway_catalog_size',
    help: 'Pipelines loaded (what="pipelines") and distinct objects they reference (what="objects").',
    labelNames: ['what'] as const,
    registers,
    collect() {
      this.set({ what: 'pipelines' }, sources.pipelines());
      this.set({ what: 'objects' }, sources.referencedObjects());
    },
  });
  const haltsInForce = new Gauge({
    name: 'promotion_gateway_halts_in_force',
    help: 'Stop-the-line halts in force in the loaded Pipelines (one per Pipeline holding it), by scope: environment or pipeline.',
    labelNames: ['scope'] as const,
    registers,
    collect() {
      const counts = sources.halts?.() ?? { environment: 0, pipeline: 0 };
      this.set({ scope: 'environment' }, counts.environment);
      this.set({ scope: 'pipeline' }, counts.pipeline);
    },
  });
  const bindSources = (bound: MetricSources): void => {
    sources = bound;
  };
  scrapeGauge(registers, 'ready', READY_HELP, () => (sources.ready?.() === true ? 1 : 0));
  const claims = () => sources.claimsPastDeadline?.() ?? 0;
  scrapeGauge(registers, 'claims_past_deadline', CLAIMS_HELP, claims);
  return { queueDepth, catalogSize, haltsInForce, bindSources };
}

const READY_HELP =
  '1 while this replica is ready (GET /readyz answers 200), else 0: alert on the sum over replicas being 0.';
const CLAIMS_HELP =
  'Promotion claims in the loaded Pipelines still Claimed after their deadline: an attempt no replica concluded.';

/** An unlabelled gauge set from `read` at scrape time. */
function scrapeGauge(registers: Registry[], name: string, help: string, read: () => number): Gauge {
  return new Gauge({
    name: `promotion_gateway_${name}`,
    help,
    registers,
    collect() {
      this.set(read());
    },
  });
}

const SHADOW_HOLDS_HELP =
  'Promotions that ran which a gate in mode Shadow would have held, by gate and its name.';

/** A fresh registry with every gateway metric registered on it. */
export function createMetrics(options: MetricsOptions = {}): GatewayMetrics {
  const registry = new Registry();
  const registers = [registry];
  const known = new Set(options.clusters ?? []);
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new Counter<L>({ name: `promotion_gateway_${name}`, help, labelNames, registers });
  const httpRequests = counter(
    'http_requests_total',
    'HTTP requests answered, by method, route pattern and status code.',
    ['method', 'route', 'status'],
  );
  const httpDuration = new Histogram({
    name: 'promotion_gateway_http_request_duration_seconds',
    help: 'HTTP request duration in seconds, by method and route pattern.',
    labelNames: ['method', 'route'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers,
  });
  const clusterReads = counter(
    'cluster_reads_total',
    'Reads of application objects from clusters, by cluster and result.',
    ['cluster', 'result'],
  );
  const resyncDuration = new Histogram({
    name: 'promotion_gateway_resync_duration_seconds',
    help: 'Duration of full resync passes in seconds, by result.',
    labelNames: ['result'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers,
  });
  const clusterLabel = (name: string): string => (known.has(name) ? name : OTHER_CLUSTER);
  return {
    registry,
    httpRequests,
    httpDuration,
    observeHttp: httpObserver(httpRequests, httpDuration),
    eventsReceived: counter('events_received_total', 'Flux events received, by outcome.', [
      'outcome',
    ]),
    hints: counter('hints_total', 'Hints offered to the queue, by source and result.', [
      'source',
      'result',
    ]),
    clusterReads,
    promotions: counter('promotions_total', 'Promotion attempts, by outcome.', ['outcome']),
    shadowHolds: counter('shadow_holds_total', SHADOW_HOLDS_HELP, ['gate', 'name']),
    statusWrites: counter(
      'status_writes_total',
      'Pipeline status changes, by result: written, conflict (a 409, re-applied), unchanged (no write needed), contended (gave up).',
      ['result'],
    ),
    authorizations: counter(
      'authorizations_total',
      'Authorizations (approvals, rejections, CI triggers), by principal kind and outcome.',
      ['kind', 'outcome'],
    ),
    refusals: refusalCounter(registers),
    resyncDuration,
    ...sourceGauges(registers),
    ...resyncGauges(registers),
    clusterLabel,
    observeRead: (cluster, result) => {
      clusterReads.inc({ cluster: clusterLabel(cluster), result });
    },
    observeResync: (report) => {
      const result = report.unknown > 0 ? 'partial' : 'ok';
      resyncDuration.observe({ result }, report.durationMs / 1000);
    },
    ...unannouncedMetrics(registers, clusterLabel),
  };
}

/** resyncLeader and resyncInterval, set by the resync's wiring. */
function resyncGauges(registers: Registry[]) {
  return {
    resyncLeader: new Gauge({
      name: 'promotion_gateway_resync_leader',
      help: "1 while this replica runs the periodic resync (it holds its shard's resync Lease), else 0.",
      labelNames: ['shard'],
      registers,
    }),
    resyncInterval: new Gauge({
      name: 'promotion_gateway_resync_interval_seconds',
      help: 'The configured interval between full resync passes, in seconds (resync.intervalMs).',
      registers,
    }),
  };
}

/**
 * unannouncedChanges and its observer. Label values stay bounded: configured cluster names and
 * the Flux app kinds. Not the namespace: where every app has namespaces of its own, a series per
 * namespace grew with the fleet (16,000 series, about 3 MB, at 10,000 apps in the scale
 * benchmark); the warning of each pass and the target's status record name the namespace.
 */
function unannouncedMetrics(registers: Registry[], clusterLabel: (name: string) => string) {
  const unannouncedChanges = new Counter({
    name: 'promotion_gateway_unannounced_changes_total',
    help: 'Changes a resync pass found that no Flux event announced, by cluster and kind.',
    labelNames: ['cluster', 'kind'] as const,
    registers,
  });
  const observeUnannounced = (cluster: string, kind: string): void => {
    unannouncedChanges.inc({ cluster: clusterLabel(cluster), kind });
  };
  return { unannouncedChanges, observeUnannounced };
}

/** refusals_total: labels bounded by the doors and the reasons of src/auth/refusal.ts. */
function refusalCounter(registers: Registry[]): Counter<'door' | 'reason'> {
  return new Counter({
    name: 'promotion_gateway_refusals_total',
    help: 'Refused credentials (answered 401), by door and reason; see "Why was I refused?" in docs/operations.md.',
    labelNames: ['door', 'reason'] as const,
    registers,
  });
}

const zero = (): number => 0;
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
