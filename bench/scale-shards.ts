/**
 * The scale section, sharded (docs/operations.md, Sharding): the same fleet with each Pipeline
 * labelled by the shard of its home cluster (scale-layout.ts), and one gateway per shard, each
 * in a process (and pod) of its own, selecting its Pipelines and holding its own Lease. It
 * measures what a sharded fleet must show: every gateway's peak RSS, and that the fleet as a
 * whole still starts with no GETs, reads an event at once and confirms its wave by scope.
 */
import type { ResyncReport } from 'promotion-gateway';
import { productionNodeFlags } from './node-flags.js';
import { podCgroup, podLimitBytes } from './pod-memory.js';
import { extraGatewayFlags, onlyShard } from './scale-diagnostics.js';
import { clusterShards, shardOf, shardSizes } from './scale-layout.js';
import { delta, objectGets, reads, readsBetween, Child } from './scale-processes.js';
import type { GatewaySample, ScaleFleetInfo, ScaleSpec } from './scale-types.js';
import { eventAtReadiness } from './scale.js';

/** What one shard's gateway measured. */
export interface ShardResult {
  pipelines: number;
  readyMs: number;
  evaluatedMs: number;
  podLimitBytes?: number | undefined;
  peakRssBytes: number;
  peakUsage?: NodeJS.MemoryUsage | undefined;
  endHeapUsedBytes: number;
}

/** What a sharded run measured: per shard, and for the fleet as a whole. */
export interface ShardedResult {
  spec: ScaleSpec;
  shards: ShardResult[];
  startupGets: number;
  eventToReadMs: number;
  /** The slowest shard's pass, all passes run at once. */
  passMs: number;
  wavePromotions: number;
  waveReads: number;
  waveMs: number;
  fleetRssBytes: number;
}

interface Shard {
  gateway: Child;
  pipelines: number;
  url: string;
  readyMs: number;
  evaluatedMs: number;
}

async function startShard(spec: ScaleSpec, info: ScaleFleetInfo, k: number, pipelines: number) {
  const pod =
    spec.unconstrained === true
      ? undefined
      : podCgroup(`shard-${String(k)}`, podLimitBytes(pipelines));
  const gateway = Child.fork(
    'scale-gateway-process.js',
    { type: 'start', spec, fleet: info, shard: k },
    [...productionNodeFlags(), ...extraGatewayFlags()],
    pod,
  );
  // Both awaited from the start: a small shard may be ready before a large one is at readiness.
  const ready = gateway.next<{ startup: { evaluatedMs: number } }>('ready');
  const atReady = await gateway.next<{ readyMs: number; url: string }>('at-ready');
  return { gateway, pipelines, atReady, ready };
}

/** Starts the fleet and one gateway per shard; sends the probe's event to its shard at readiness. */
async function startup(spec: ScaleSpec) {
  const fleet = Child.fork('scale-fleet-process.js', { type: 'start', spec });
  const { info } = await fleet.next<{ info: ScaleFleetInfo }>('ready');
  const only = onlyShard();
  const sizes = shardSizes(spec);
  const started = await Promise.all(
    sizes.flatMap((n, k) =>
      only === undefined || only === k ? [startShard(spec, info, k, n)] : [],
    ),
  );
  const probeShard = Number(shardOf(spec, clusterShards(spec), 0).slice(1));
  const probe = started[only === undefined ? probeShard : 0];
  if (probe === undefined) throw new Error(`no shard ${String(probeShard)}`);
  // With one shard only, the probe's Pipeline may be another's: then no event is measured.
  const eventToReadMs =
    only === undefined || only === probeShard
      ? await eventAtReadiness(fleet, info, probe.atReady.url)
      : Number.NaN;
  const shards: Shard[] = await Promise.all(
    started.map(async (s) => {
      const ready = await s.ready;
      return {
        ...s,
        url: s.atReady.url,
        readyMs: s.atReady.readyMs,
        evaluatedMs: ready.startup.evaluatedMs,
      };
    }),
  );
  const { cluster, namespace, name } = info.probe;
  const probeGets = await objectGets(info, cluster, namespace, name);
  const startupGets = delta((await reads(info)).gets, {}).total - probeGets;
  return { fleet, info, shards, eventToReadMs, startupGets };
}

/** One pass on every shard at once; resolves when all are idle again. */
async function passes(shards: readonly Shard[]): Promise<ResyncReport[]> {
  const reports = await Promise.all(
    shards.map((s) => s.gateway.ask<ResyncReport>({ type: 'resync' })),
  );
  await Promise.all(shards.map((s) => s.gateway.ask({ type: 'idle' })));
  return reports;
}

const samples = (shards: readonly Shard[]) =>
  Promise.all(shards.map((s) => s.gateway.ask<GatewaySample>({ type: 'sample' })));

/** Measures one sharded size; every child is stopped before it resolves. */
export async function measureShardedScale(spec: ScaleSpec): Promise<ShardedResult> {
  const s = await startup(spec);
  try {
    const before = await reads(s.info);
    const pass = await passes(s.shards);
    const afterPass = await reads(s.info);
    const promotedBefore = await samples(s.shards);
    await s.fleet.ask({ type: 'roll', fraction: 0.8, version: '2.0.0' });
    const waveStart = Date.now();
    await passes(s.shards);
    const waveMs = Date.now() - waveStart;
    const afterWave = await reads(s.info);
    const end = await samples(s.shards);
    const sum = (list: GatewaySample[]) => list.reduce((n, x) => n + x.promotions, 0);
    return {
      spec,
      shards: s.shards.map((shard, k) => ({
        pipelines: shard.pipelines,
        readyMs: shard.readyMs,
        evaluatedMs: shard.evaluatedMs,
        podLimitBytes: end[k]?.podLimitBytes,
        peakRssBytes: end[k]?.rssMaxBytes ?? 0,
        peakUsage: end[k]?.peak,
        endHeapUsedBytes: end[k]?.heapUsedBytes ?? 0,
      })),
      startupGets: s.startupGets,
      eventToReadMs: s.eventToReadMs,
      passMs: Math.max(...pass.map((r) => r.durationMs)),
      wavePromotions: sum(end) - sum(promotedBefore),
      waveReads: readsBetween(afterWave, afterPass) - readsBetween(afterPass, before),
      waveMs,
      fleetRssBytes: await s.fleet.ask<number>({ type: 'rss' }),
    };
  } finally {
    await Promise.all(s.shards.map((shard) => shard.gateway.stop()));
    await s.fleet.stop();
  }
}

/**
 * The sharded sizes to run: quick mode (CI) a small fleet in two shards; else 10,000 x 50 in
 * 2 shards of 4,800-5,200 Pipelines (12 or 13 home clusters of 400 each), in both layouts.
 */
export function shardedSizes(quick: boolean): ScaleSpec[] {
  if (quick) return [{ pipelines: 100, clusters: 5, layout: 'env', shards: 2 }];
  return (['env', 'app'] as const).map((layout) => ({
    pipelines: 10_000,
    clusters: 50,
    layout,
    // Each gateway peaks at 175-204 MiB (bar 256 MB) in its 1Gi pod; one gateway for the whole
    // fleet at 223-238 MiB (docs/benchmarks.md, "Figures").
    shards: 2,
  }));
}
