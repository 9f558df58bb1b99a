/**
 * End-to-end harness: the real gateway (createGateway) against the tests' kube-sim fleet
 * (support/fleet.ts), with one isolated app per test (test-app.ts: its own namespace on every
 * cluster and its own Pipeline, Flux's moves and events reproduced exactly), what the tests read
 * back (gateway-observations.ts), and a bounded poll helper instead of timed assertions. Tests
 * import all of it from here.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll } from 'vitest';
import { realScheduler, type Scheduler } from '../../src/clock.js';
import { defaultConfig, type ConfigInput } from '../../src/config/load.js';
import { createGateway, type Gateway } from '../../src/wiring/gateway.js';
import { createLogger } from '../../src/log.js';
import type { PromotionRecord } from '../../src/pipeline/pipeline-resource.js';
import {
  ENVIRONMENTS,
  FLUX_NAMESPACE,
  GATEWAY_USER,
  startTestFleet,
  type TestFleet,
} from './fleet.js';
import { eventually } from './poll.js';
import { APP_NAME, pipelineOf, recordOf } from './gateway-observations.js';
import { INITIAL_VERSION, postSigned } from './test-app.js';

export { ENVIRONMENTS, GATEWAY_USER, eventually, startTestFleet };
export {
  APP_NAME,
  PIPELINE_API,
  metricSum,
  pipelineOf,
  promoteEvents,
  recordOf,
  scrapeMetric,
} from './gateway-observations.js';
export type { CoreEvent, MetricSeries } from './gateway-observations.js';
export {
  HR_API,
  HR_RESOURCE,
  INITIAL_VERSION,
  createApp,
  postSigned,
  rollOut,
  upgradeBody,
} from './test-app.js';
export type { TestFleet };
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
