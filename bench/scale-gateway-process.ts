/**
 * The scale benchmark's gateway, alone in its process as in production: createGateway against
 * the scale fleet, every target cluster named by its GitopsCluster, logs to /dev/null at warn,
 * no periodic resync (the benchmark asks for passes); or, for the idle part, one of several
 * replicas with its own identity and a periodic resync (under the shared Lease). It reports
 * when /readyz first says ready and when every Pipeline has been evaluated, then answers the
 * benchmark's requests.
 */
import { once } from 'node:events';
import { totalmem } from 'node:os';
import { pino } from 'pino';
import {
  KubeConfig,
  createGateway,
  createLogger,
  defaultConfig,
  type Gateway,
} from 'promotion-gateway';
import { getText } from './http-text.js';
import { MemorySampler } from './memory.js';
import { ScaleDiagnostics } from './scale-diagnostics.js';
import { SHARD_LABEL, shardSizes } from './scale-layout.js';
import type {
  GatewaySample,
  ReplicaSettings,
  ScaleFleetInfo,
  ScaleGatewayMessage,
  ScaleSpec,
  ToScaleGateway,
} from './scale-types.js';

function send(
  message: ScaleGatewayMessage | { type: 'at-ready'; readyMs: number; url: string },
): void {
  process.send?.(message);
}

async function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The gateway's promotions so far, from its /metrics (through node:http: http-text.ts). */
async function promotions(url: string): Promise<number> {
  const text = await getText(`${url}/metrics`);
  const line = /^promotion_gateway_promotions_total\{outcome="Promoted"\} (\d+)/m.exec(text);
  return Number(line?.[1] ?? 0);
}

/** This process's memory limit (its cgroup's), or undefined when it has none below the machine's. */
function podLimit(): number | undefined {
  const limit = process.constrainedMemory();
  return limit > 0 && limit < totalmem() ? limit : undefined;
}

async function sample(sampler: MemorySampler, url: string): Promise<GatewaySample> {
  sampler.sample();
  // With --expose-gc the sample reports live memory (after a full GC), not garbage not yet freed.
  (globalThis as { gc?: () => void }).gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  const cpu = process.cpuUsage();
  return {
    rssMaxBytes: sampler.peakRss(),
    podLimitBytes: podLimit(),
    peak: sampler.peakUsage(),
    rssBytes: rss,
    heapUsedBytes: heapUsed,
    cpuMs: (cpu.user + cpu.system) / 1000,
    promotions: await promotions(url),
  };
}

/** Settings of one replica among several, or of the lone gateway (no periodic resync). */
function replicaConfig(replica: ReplicaSettings | undefined) {
  if (replica === undefined) return { resync: { intervalMs: 3_600_000 } };
  return {
    resync: { intervalMs: replica.resyncIntervalMs },
    leaderElection: { identity: replica.name },
    promotion: { instanceId: replica.name },
  };
}

/** Of a sharded fleet, shard `k`: its name, its Pipelines' label, its own Lease (by name). */
function shardConfig(shard: number | undefined) {
  if (shard === undefined) return {};
  const name = `s${String(shard)}`;
  return { sharding: { name, pipelineSelector: `${SHARD_LABEL}=${name}` } };
}

async function build(
  spec: ScaleSpec,
  fleet: ScaleFleetInfo,
  replica: ReplicaSettings | undefined,
  shard: number | undefined,
): Promise<Gateway> {
  const config = defaultConfig({
    server: { host: '127.0.0.1', port: 0 },
    management: { name: 'management' },
    clusters: fleet.clusters.map((name) => ({
      name,
      gitopsCluster: { namespace: 'flux-system', name },
      hmacKeys: name === fleet.probe.cluster ? [{ value: fleet.probe.hmacKey }] : [],
    })),
    rateLimit: { max: 1_000_000_000 },
    hints: { capacity: Math.max(10_000, spec.pipelines * 6) },
    logLevel: 'warn',
    ...replicaConfig(replica),
    ...shardConfig(shard),
  });
  const management = new KubeConfig();
  management.loadFromString(fleet.managementKubeconfig);
  const destination = pino.destination({ dest: '/dev/null', sync: false });
  await once(destination, 'ready');
  const logger = createLogger(config.logLevel, destination);
  return createGateway({ config, managementKubeConfig: management, logger });
}

async function main(
  spec: ScaleSpec,
  fleet: ScaleFleetInfo,
  replica: ReplicaSettings | undefined,
  shard: number | undefined,
): Promise<void> {
  const sampler = new MemorySampler('scale', 50);
  const diagnostics = new ScaleDiagnostics();
  const gateway = await build(spec, fleet, replica, shard);
  const expected = shard === undefined ? spec.pipelines : (shardSizes(spec)[shard] ?? 0);
  const url = await gateway.listen();
  const started = Date.now();
  await gateway.start();
  await until(() => gateway.status().ready, 600_000, 'readiness');
  const readyMs = Date.now() - started;
  diagnostics.mark('ready');
  send({ type: 'at-ready', readyMs, url });
  await until(() => gateway.status().resyncPasses > 0, 600_000, 'the start-up pass');
  await until(() => gateway.status().evaluated >= expected, 600_000, 'every evaluation');
  const evaluatedMs = Date.now() - started;
  diagnostics.mark('evaluated');
  await gateway.idle();
  diagnostics.mark('statuses written');
  const statusesWrittenMs = Date.now() - started;
  process.on('message', (message: ToScaleGateway) => {
    if (message.type === 'start') return;
    const reply = (value: unknown) => {
      send({ type: 'reply', id: message.id, value });
    };
    diagnostics.mark(message.type);
    if (message.type === 'sample') diagnostics.snapshot();
    if (message.type === 'resync') void gateway.resync().then(reply);
    else if (message.type === 'status') reply(gateway.status());
    else if (message.type === 'idle')
      void gateway.idle().then(() => {
        reply(null);
      });
    else void sample(sampler, url).then(reply);
  });
  process.on('disconnect', () => {
    void gateway.close().finally(() => process.exit(0));
  });
  send({
    type: 'ready',
    url,
    startup: { evaluatedMs, statusesWrittenMs, readyMs, eventToViewMs: 0 },
  });
}

if (process.send !== undefined) {
  process.once('message', (message: ToScaleGateway) => {
    if (message.type !== 'start') return;
    main(message.spec, message.fleet, message.replica, message.shard).catch((err: unknown) => {
      process.stderr.write(
        `bench scale gateway: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
      );
      process.exit(1);
    });
  });
}
