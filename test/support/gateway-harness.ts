/**
 * End-to-end harness: the real gateway (createGateway) against the tests' kube-sim fleet
 * (support/fleet.ts), with one isolated app per test (its own namespace on every cluster and
 * its own Pipeline), Flux's moves and events reproduced exactly, and a bounded poll helper
 * instead of timed assertions.
 */
import { KubeConfig } from '@kubernetes/client-node';
import type { SimCluster } from 'kube-sim';
import { installRelease, rollOutRelease, upgradeEvent, newestRelease } from 'kube-sim/flux';
import { afterAll, beforeAll } from 'vitest';
import { signBody } from '../../src/auth/hmac.js';
import { realScheduler, type Scheduler } from '../../src/clock.js';
import { defaultConfig, type ConfigInput } from '../../src/config/load.js';
import { createGateway, type Gateway } from '../../src/wiring/gateway.js';
import type { KubeObject } from '../../src/kube/ports.js';
import { createLogger } from '../../src/log.js';
import type {
  Pipeline,
  PromotionRecord,
  PromotionSpec,
  StrategySpec,
} from '../../src/pipeline/pipeline-resource.js';
import {
  ENVIRONMENTS,
  FLUX_NAMESPACE,
  GATEWAY_USER,
  startTestFleet,
  type TestFleet,
} from './fleet.js';
import { eventually } from './poll.js';

export { ENVIRONMENTS, GATEWAY_USER, eventually, startTestFleet };
export type { TestFleet };
/** The app every test pipeline moves (HelmRelease and Pipeline name). */
export const APP_NAME = 'podinfo';
/** The revision every environment starts at. */
export const INITIAL_VERSION = '6.5.0';
export const HR_API = 'helm.toolkit.fluxcd.io/v2';
export const PIPELINE_API = 'pipelines.weave.works/v1alpha1';
/** `resource` filter for kube-sim request counters. */
export const HR_RESOURCE = 'helmreleases.helm.toolkit.fluxcd.io';

/**
 * One isolated app: namespace `ns` on every cluster, a podinfo HelmRelease released at 6.5.0
 * in dev/staging/prod, and Pipeline ns/podinfo (dev -> staging -> prod, notification strategy)
 * in management. `legacyKey`: Secret `legacy-hmac` with that `hmac-key`, named in secretRef.
 * `prodPromotion`: prod's own promotion settings (manual, approval gate); `prodStrategy`: its
 * own strategy.
 */
export function createApp(
  fleet: TestFleet,
  ns: string,
  options: {
    legacyKey?: Buffer;
    prodPromotion?: Omit<PromotionSpec, 'strategy'>;
    /** staging's own promotion settings (e.g. an automatic rollback). */
    stagingPromotion?: Omit<PromotionSpec, 'strategy'>;
    /** prod's own strategy (e.g. pull-request); the others keep the notification strategy. */
    prodStrategy?: StrategySpec;
    /** The Pipeline's labels (e.g. the shard that serves it). */
    labels?: Record<string, string>;
  } = {},
): void {
  for (const name of ENVIRONMENTS) {
    installRelease(fleet.env(name), { namespace: ns, name: APP_NAME }, INITIAL_VERSION);
  }
  fleet.management.ensureNamespace(ns);
  const strategy: StrategySpec = { notification: {} };
  if (options.legacyKey !== undefined) {
    fleet.management.apply({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'legacy-hmac', namespace: ns },
      type: 'Opaque',
      data: { 'hmac-key': options.legacyKey.toString('base64') },
    });
    strategy.secretRef = { name: 'legacy-hmac' };
  }
  fleet.management.apply({
    apiVersion: PIPELINE_API,
    kind: 'Pipeline',
    metadata: {
      name: APP_NAME,
      namespace: ns,
      ...(options.labels === undefined ? {} : { labels: options.labels }),
    },
    spec: {
      appRef: { apiVersion: HR_API, kind: 'HelmRelease', name: APP_NAME },
      promotion: { strategy },
      environments: ENVIRONMENTS.map((env) => ({
        name: env,
        targets: [
          {
            namespace: ns,
            clusterRef: { kind: 'GitopsCluster', name: env, namespace: FLUX_NAMESPACE },
          },
        ],
        // weave requires a strategy beside any environment-level promotion setting.
        ...(env === 'prod' &&
        (options.prodPromotion !== undefined || options.prodStrategy !== undefined)
          ? { promotion: { strategy: options.prodStrategy ?? strategy, ...options.prodPromotion } }
          : {}),
        ...(env === 'staging' && options.stagingPromotion !== undefined
          ? { promotion: { strategy, ...options.stagingPromotion } }
          : {}),
      })),
    },
  });
}

/**
 * What Flux's helm-controller does on a release, through kube-sim's code API (not counted as
 * API requests): the spec moves (generation bump), then the status reports `version` deployed.
 */
export function rollOut(cluster: SimCluster, ns: string, version: string): KubeObject {
  return rollOutRelease(cluster, ns, APP_NAME, version) as unknown as KubeObject;
}

/**
 * The exact bytes helm-controller's UpgradeSucceeded event reaches a generic-hmac Provider
 * with, for `object`; `claimed` is the revision its message and metadata state (default the
 * object's real one), so tests can forge a claim while keeping the wire format.
 */
export function upgradeBody(object: KubeObject, claimed?: string): Buffer {
  const newest = newestRelease(object);
  const version = claimed ?? newest?.chartVersion ?? INITIAL_VERSION;
  return Buffer.from(upgradeEvent(object, version, newest?.version ?? 1, new Date()), 'utf8');
}

/** POSTs `body` exactly as notification-controller does for a generic-hmac Provider. */
export function postSigned(
  url: string,
  path: string,
  body: Buffer,
  key: Buffer | undefined,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${url}${path}`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'Gotk-Component': 'helm-controller',
      ...(key === undefined ? {} : { 'X-Signature': signBody(body, key) }),
      ...headers,
    },
    body,
  });
}

/** A gateway under test, listening on 127.0.0.1:<ephemeral>. */
export interface RunningGateway {
  gateway: Gateway;
  url: string;
  /** Moves the gateway's clock forward (timers stay real): makes stored reads stale. */
  advanceClock(ms: number): void;
  close(): Promise<void>;
}

/**
 * Builds the real gateway for `fleet`: clusters dev/staging/prod with their demo HMAC keys
 * (and JWT subject `flux-<env>`), the management kubeconfig of the least-privilege gateway
 * user, a resync interval so long that only runOnce() resyncs, and the instance id as its
 * leader-election identity. `config` is merged over that;
 * `start: false` only listens (readiness tests); `managementKubeconfig` replaces the credentials.
 */
export async function launchGateway(
  fleet: TestFleet,
  options: {
    instanceId?: string;
    config?: ConfigInput;
    start?: boolean;
    /** The management kubeconfig's text; the least-privilege gateway user's by default. */
    managementKubeconfig?: string;
    /** Receives the gateway's log lines at `logLevel` (otherwise the log is silent). */
    logLines?: string[];
    /** The level of the lines `logLines` receives; default info. */
    logLevel?: 'info' | 'debug' | 'trace';
    /** The most Pipelines one halt across Pipelines may change (the gateway's default 1,000). */
    maxPipelinesPerHalt?: number;
    /** How old the CRD's last check may be when a status write is made (the gateway's 2 s). */
    crdFreshMs?: number;
  } = {},
): Promise<RunningGateway> {
  const overrides = options.config ?? {};
  const config = defaultConfig({
    server: { host: '127.0.0.1', port: 0 },
    rateLimit: { max: 100_000 },
    management: { name: 'management' },
    clusters: ENVIRONMENTS.map((name) => ({
      name,
      gitopsCluster: { namespace: FLUX_NAMESPACE, name },
      hmacKeys: [{ value: fleet.key(name).toString('utf8') }],
      jwtSubjects: [`flux-${name}`],
    })),
    hints: { retryBaseMs: 50, retryMaxMs: 400, maxRetries: 1000 },
    resync: { intervalMs: 600_000 },
    logLevel: 'silent',
    ...overrides,
    leaderElection: {
      identity: options.instanceId ?? 'gateway-test',
      ...overrides.leaderElection,
    },
    promotion: {
      instanceId: options.instanceId ?? 'gateway-test',
      ...overrides.promotion,
    },
  });
  const managementKubeConfig = new KubeConfig();
  managementKubeConfig.loadFromString(
    options.managementKubeconfig ?? fleet.management.kubeconfig(GATEWAY_USER),
  );
  let offset = 0;
  const scheduler: Scheduler = {
    // advanceClock moves the wall clock only, as an NTP step would; durations stay real.
    now: () => realScheduler.now() + offset,
    monotonic: () => realScheduler.monotonic(),
    setTimer: (ms, fn) => realScheduler.setTimer(ms, fn),
  };
  const gateway = await createGateway({
    config,
    managementKubeConfig,
    logger: testLogger(options.logLines, options.logLevel),
    scheduler,
    kubeTimeoutMs: 5_000,
    ...(options.maxPipelinesPerHalt === undefined
      ? {}
      : { maxPipelinesPerHalt: options.maxPipelinesPerHalt }),
    ...(options.crdFreshMs === undefined ? {} : { crdFreshMs: options.crdFreshMs }),
  });
  const url = await gateway.listen({ host: '127.0.0.1', port: 0 });
  if (options.start !== false) {
    await gateway.start();
    // The first resync pass runs in the background; let it finish before tests change state.
    await eventually(() => gateway.status().resyncPasses > 0);
  }
  return {
    gateway,
    url,
    advanceClock: (ms) => {
      offset += ms;
    },
    close: () => gateway.close(),
  };
}

/** GW_LOG=1 shows the gateway's debug log when a test needs explaining; `lines` captures info. */
function testLogger(lines: string[] | undefined, level: 'info' | 'debug' | 'trace' = 'info') {
  if (lines !== undefined)
    return createLogger(level, { write: (line: string) => void lines.push(line) });
  return createLogger(process.env.GW_LOG === undefined ? 'silent' : 'debug');
}

/** A test fleet with one gateway on it, for a whole test file. */
export interface FleetAndGateway {
  readonly fleet: TestFleet;
  readonly gw: RunningGateway;
}

/**
 * Starts a test fleet and one gateway (launchGateway's defaults, or `options`) before the
 * file's tests and stops both after them; the fields are set once beforeAll has run.
 */
export function useFleetAndGateway(
  options: Parameters<typeof launchGateway>[1] = {},
): FleetAndGateway {
  const env = {} as { fleet: TestFleet; gw: RunningGateway };
  beforeAll(async () => {
    env.fleet = await startTestFleet();
    env.gw = await launchGateway(env.fleet, options);
  });
  afterAll(async () => {
    await env.gw.close();
    await env.fleet.close();
  });
  return env;
}

/** The stored Pipeline ns/podinfo, read from management with the code API. */
export function pipelineOf(fleet: TestFleet, ns: string): Pipeline {
  const object = fleet.management.get(PIPELINE_API, 'Pipeline', ns, APP_NAME);
  if (object === undefined) throw new Error(`no Pipeline ${ns}/${APP_NAME}`);
  return object as unknown as Pipeline;
}

/** The stored promotion record of one environment, if any. */
export function recordOf(fleet: TestFleet, ns: string, env: string): PromotionRecord | undefined {
  return pipelineOf(fleet, ns).status?.environments?.[env]?.promotion;
}

/**
 * Sends one event body, signed with dev's key, to every replica at once; resolves with their
 * HTTP statuses and staging's record once it shows `version` Succeeded and every replica is idle.
 */
export async function deliverToEveryReplica(
  fleet: TestFleet,
  replicas: readonly RunningGateway[],
  ns: string,
  body: Buffer,
  version: string,
): Promise<{ statuses: number[]; record: PromotionRecord }> {
  const answers = await Promise.all(
    replicas.map((r) => postSigned(r.url, '/v1/events/dev', body, fleet.key('dev'))),
  );
  const record = await eventually(() => {
    const r = recordOf(fleet, ns, 'staging');
    if (r?.revision !== version || r.phase !== 'Succeeded' || !r.succeeded)
      throw new Error(`staging's record is ${JSON.stringify(r)}, not ${version} Succeeded`);
    return r;
  });
  for (const r of replicas) await r.gateway.idle();
  return { statuses: answers.map((a) => a.status), record };
}

/** A core Event as far as these tests read it. */
export interface CoreEvent {
  reason?: string;
  metadata: { annotations?: Record<string, string> };
  involvedObject?: { kind?: string; name?: string; namespace?: string };
}

/** Every core Event with reason Promote in namespace `ns` of management. */
export function promoteEvents(fleet: TestFleet, ns: string): CoreEvent[] {
  return (fleet.management.list('v1', 'Event', ns) as unknown as CoreEvent[]).filter(
    (e) => e.reason === 'Promote',
  );
}

/**
 * Waits until the gateways have verified every target of ns/podinfo at 6.5.0 and written that
 * to the Pipeline's status, then until they are idle.
 */
export async function waitSteady(
  fleet: TestFleet,
  gateways: readonly RunningGateway[],
  ns: string,
): Promise<void> {
  await eventually(() => {
    const envs = pipelineOf(fleet, ns).status?.environments ?? {};
    for (const name of ENVIRONMENTS) {
      const target = envs[name]?.targets?.[0];
      if (target?.ready !== true || target.revision !== INITIAL_VERSION)
        throw new Error(`${ns}: ${name} not verified yet: ${JSON.stringify(target)}`);
    }
  });
  for (const g of gateways) {
    await eventually(() => g.gateway.view({ namespace: ns, name: APP_NAME }) !== undefined);
    await g.gateway.idle();
  }
}

/**
 * Waits until the hint queue holds nothing at all, spaced re-reads included (idle() does not
 * wait for timers), then until the gateway is idle.
 */
export async function hintsDrained(g: RunningGateway): Promise<void> {
  await eventually(() => {
    const stats = g.gateway.status().hints;
    return stats.scheduled === 0 && stats.depth === 0 && stats.inFlight === 0;
  });
  await g.gateway.idle();
}

/** One series of a metric as the gateway's /metrics page shows it. */
export interface MetricSeries {
  labels: Record<string, string>;
  value: number;
}

/** Every series of metric `name` on the gateway's /metrics page, read over HTTP as Prometheus does. */
export async function scrapeMetric(url: string, name: string): Promise<MetricSeries[]> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const out: MetricSeries[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match?.[1] !== name) continue;
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[pair[1] ?? ''] = pair[2] ?? '';
    }
    out.push({ labels, value: Number(match[3]) });
  }
  return out;
}

/** The sum of the series of metric `name` whose labels include `labels`. */
export async function metricSum(
  url: string,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const series = await scrapeMetric(url, name);
  return series
    .filter((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}
