/**
 * The two servers under test: the real gateway in the benchmark's own process (createGateway
 * against the demo's kube-sim fleet, wired as `npm start` wires it), and a bare fastify route
 * that answers 202 in a process of its own, the ceiling the real ingress is compared with.
 */
import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import type { Level } from 'pino';
import { defaultConfig } from '../src/config/load.js';
import { DEMO_ENVIRONMENTS, FLUX_NAMESPACE, upgradeEvent } from '../src/demo/objects.js';
import { createGateway } from '../src/gateway.js';
import type { Gateway } from '../src/gateway.js';
import { createLogger } from '../src/log.js';
import { forkReady, stopChild } from './child.js';
import type { FleetHandle } from './fleet.js';

/** The environment (and kube-sim cluster) whose Flux sends the benchmark's events. */
export const EVENT_CLUSTER = 'dev';
/** A HelmRelease name no Pipeline references. */
export const UNREFERENCED_NAME = 'not-in-any-pipeline';
/** Long enough that no periodic resync runs during the benchmark (the first pass still does). */
const RESYNC_INTERVAL_MS = 3_600_000;
/** Events all come from one subject; the limiter still runs, it just never trips. */
const RATE_LIMIT_MAX = 1_000_000_000;

/** A request as the load client sends it. */
export interface SignedEvent {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** A listening server under test. */
export interface ServerUnderTest {
  host: string;
  port: number;
  close(): Promise<void>;
}

/** The real gateway on the demo fleet, plus what the benchmark needs to drive and observe it. */
export interface GatewayUnderTest extends ServerUnderTest {
  gateway: Gateway;
  /** The kube-sim fleet (another process); its request accounting counts the gateway's reads. */
  fleet: FleetHandle;
  /** A signed upgrade event for the referenced HelmRelease podinfo/podinfo in dev. */
  referenced: SignedEvent;
  /** A signed upgrade event for a HelmRelease in dev that no Pipeline references. */
  unreferenced: SignedEvent;
}

function portOf(app: FastifyInstance): number {
  const address = app.server.address() as AddressInfo | null;
  if (address === null) throw new Error('server is not listening');
  return address.port;
}

/** The bare fastify route (bare-process.ts) in its own process. */
export async function startBareServer(): Promise<ServerUnderTest> {
  const { child, ready: port } = await forkReady('bare-process.js', (m) => Number(m.port));
  return { host: '127.0.0.1', port, close: () => stopChild(child) };
}

/** Signs `body` as Flux's generic-hmac Provider does for `cluster`. */
export function signedEvent(cluster: string, key: string, body: string): SignedEvent {
  const signature = createHmac('sha256', Buffer.from(key, 'utf8')).update(body).digest('hex');
  return {
    path: `/v1/events/${cluster}`,
    headers: {
      'Content-Type': 'application/json',
      'Gotk-Component': 'helm-controller',
      'X-Signature': `sha256=${signature}`,
    },
    body,
  };
}

/**
 * Starts a gateway against `fleet`, configured as the demo does except: logs go to /dev/null
 * (same pino pipeline and level, no terminal cost), the per-subject rate limit is out of reach,
 * and the periodic resync is pushed past the end of the run. Resolves once the first resync
 * pass has completed and every queue is idle.
 */
export async function startGateway(fleet: FleetHandle, logLevel: Level): Promise<GatewayUnderTest> {
  const { hmacKeys } = fleet.info;
  const config = defaultConfig({
    server: { host: '127.0.0.1', port: 0 },
    management: { name: 'management' },
    clusters: DEMO_ENVIRONMENTS.map((name) => ({
      name,
      gitopsCluster: { namespace: FLUX_NAMESPACE, name },
      hmacKeys: [{ value: hmacKeys[name] ?? '' }],
      jwtSubjects: [],
    })),
    rateLimit: { max: RATE_LIMIT_MAX },
    resync: { intervalMs: RESYNC_INTERVAL_MS },
    logLevel,
  });
  const management = new KubeConfig();
  management.loadFromString(fleet.info.managementKubeconfig);
  const destination = pino.destination({ dest: '/dev/null', sync: false });
  await once(destination, 'ready');
  const logger = createLogger(config.logLevel, destination);
  const gateway = await createGateway({ config, managementKubeConfig: management, logger });
  await gateway.start();
  await gateway.listen();
  await waitFor(() => gateway.resync.completedPasses > 0, 30_000, 'the first resync pass');
  await gateway.idle();

  const object = fleet.info.helmRelease;
  const key = hmacKeys[EVENT_CLUSTER] ?? '';
  const version = '6.5.1';
  const now = new Date();
  const unreferencedObject = {
    ...object,
    metadata: { ...object.metadata, name: UNREFERENCED_NAME },
  };
  return {
    host: '127.0.0.1',
    port: portOf(gateway.app),
    gateway,
    fleet,
    referenced: signedEvent(EVENT_CLUSTER, key, upgradeEvent(object, version, 2, now)),
    unreferenced: signedEvent(
      EVENT_CLUSTER,
      key,
      upgradeEvent(unreferencedObject, version, 2, now),
    ),
    close: async () => {
      await gateway.close();
      destination.end();
    },
  };
}

async function waitFor(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
