/**
 * The real gateway under test, run as its own process (see servers.ts) with the Node.js flags
 * of the Dockerfile's ENTRYPOINT: createGateway against the kube-sim fleet, wired as the demo
 * wires it. Its own process keeps the benchmark's bookkeeping out of the gateway's memory
 * figure and event loop, as in production, where the gateway is alone in its container.
 */
import { once } from 'node:events';
import { pino } from 'pino';
import { DEMO_ENVIRONMENTS, FLUX_NAMESPACE } from '@promotion-gateway/demo';
import { upgradeEvent } from 'kube-sim/flux';
import { KubeConfig, createGateway, createLogger, defaultConfig } from 'promotion-gateway';
import type { GatewayMessage, GatewayRequest, GatewayStart } from './gateway-types.js';
import { MemorySampler } from './memory.js';
import { EVENT_CLUSTER, signedEvent, UNREFERENCED_NAME } from './servers.js';

/** Long enough that no periodic resync runs during the benchmark (the first pass still does). */
const RESYNC_INTERVAL_MS = 3_600_000;
/** Events all come from one subject; the limiter still runs, it just never trips. */
const RATE_LIMIT_MAX = 1_000_000_000;

function send(message: GatewayMessage): void {
  process.send?.(message);
}

async function waitFor(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Starts the gateway, configured as the demo does (the web view on, anonymous) except: logs go to /dev/null (same pino
 * pipeline and level, no terminal cost), the per-subject rate limit is out of reach, and the
 * periodic resync is pushed past the end of the run. Ready once the first resync pass has
 * completed and every queue is idle.
 */
async function main({ fleet, logLevel }: GatewayStart): Promise<void> {
  const sampler = new MemorySampler('start-up (gateway, first resync)');
  const { hmacKeys } = fleet;
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
    // The web view as the demo serves it (part (g) opens live streams on it).
    ui: { port: 0, anonymous: true },
    logLevel,
  });
  const management = new KubeConfig();
  management.loadFromString(fleet.managementKubeconfig);
  const destination = pino.destination({ dest: '/dev/null', sync: false });
  await once(destination, 'ready');
  const logger = createLogger(config.logLevel, destination);
  const gateway = await createGateway({ config, managementKubeConfig: management, logger });
  await gateway.start();
  const address = await gateway.listen();
  await waitFor(() => gateway.status().resyncPasses > 0, 30_000, 'the first resync pass');
  await gateway.idle();

  process.on('message', (message: GatewayRequest) => {
    const reply = (value?: Extract<GatewayMessage, { type: 'reply' }>['value']) => {
      send({ type: 'reply', id: message.id, value });
    };
    switch (message.type) {
      case 'idle':
        void gateway.idle().then(() => {
          reply();
        });
        return;
      case 'hint-stats':
        reply({ ...gateway.status().hints });
        return;
      case 'memory-phase':
        sampler.phase(message.phase);
        reply();
        return;
      case 'memory-report':
        reply(sampler.stop());
        return;
    }
  });
  process.on('disconnect', () => {
    sampler.stop();
    void gateway
      .close()
      .finally(() => {
        destination.end();
      })
      .finally(() => process.exit(0));
  });

  const object = fleet.helmRelease;
  const key = hmacKeys[EVENT_CLUSTER] ?? '';
  const version = '6.5.1';
  const now = new Date();
  const unreferencedObject = {
    ...object,
    metadata: { ...object.metadata, name: UNREFERENCED_NAME },
  };
  const ui = gateway.uiAddress();
  send({
    type: 'ready',
    port: Number(new URL(address).port),
    ...(ui === undefined ? {} : { uiPort: Number(new URL(ui).port) }),
    referenced: signedEvent(EVENT_CLUSTER, key, upgradeEvent(object, version, 2, now)),
    unreferenced: signedEvent(
      EVENT_CLUSTER,
      key,
      upgradeEvent(unreferencedObject, version, 2, now),
    ),
  });
}

if (process.send !== undefined) {
  process.once('message', (message: GatewayStart) => {
    main(message).catch((err: unknown) => {
      process.stderr.write(
        `bench gateway: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
      );
      process.exit(1);
    });
  });
}
