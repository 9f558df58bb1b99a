/**
 * Part (e), the scale section: N pipelines x 3 environments x 2 targets over C clusters, in
 * both namespace layouts, the fleet and the gateway each in a process of its own. Per size it
 * measures start-up (until ready, until every Pipeline is evaluated, the GETs it took), an
 * event sent at readiness, a full pass, a promotion wave after a pass, and the gateway's
 * memory and CPU; the 10,000 x 50 goals are judged there (scale-report.ts).
 */
import { upgradeEvent } from 'kube-sim/flux';
import type { ResyncReport } from 'promotion-gateway';
import { productionNodeFlags } from './node-flags.js';
import { podCgroup, podLimitBytes } from './pod-memory.js';
import { extraGatewayFlags } from './scale-diagnostics.js';
import { allowedCpus, pinToOneCore } from './cpu-affinity.js';
import { paceOf } from './scale-pace.js';
import { delta, objectGets, reads, readsBetween, Child } from './scale-processes.js';
import type { GatewaySample, Layout, ScaleFleetInfo, ScaleSpec } from './scale-types.js';
import { signedEvent } from './servers.js';

/** What one size and layout measured. */
export interface ScaleResult {
  spec: ScaleSpec;
  targets: number;
  buildMs: number;
  readyMs: number;
  evaluatedMs: number;
  statusesWrittenMs: number;
  startupGets: number;
  eventToReadMs: number;
  passMs: number;
  listsPerPassMaxPerCluster: number;
  getsDuringPass: number;
  passCpuMs: number;
  wavePromotions: number;
  /** GETs and LISTs of app objects in the wave beyond the pass's own LISTs (round included). */
  waveReads: number;
  waveMs: number;
  /** The wave pass's confirmation round: Pipelines due, targets read again, its time. */
  waveConfirmation?: ResyncReport['confirmation'];
  /** The CPUs every thread of the gateway process was allowed at the end (one-core pace). */
  gatewayCpus?: string | undefined;
  /** The memory limit of the gateway's cgroup (its pod's); undefined: it ran unconstrained. */
  podLimitBytes?: number | undefined;
  peakRssBytes: number;
  /** What the RSS peak was made of (process.memoryUsage() then). */
  peakUsage?: NodeJS.MemoryUsage | undefined;
  /** Heap in use and RSS at the end (after a full GC when run with --expose-gc). */
  endHeapUsedBytes: number;
  endRssBytes: number;
  fleetRssBytes: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends the probe's event at readiness and resolves with the time until its object is read. */
export async function eventAtReadiness(
  fleet: Child,
  info: ScaleFleetInfo,
  url: string,
): Promise<number> {
  const { cluster, namespace, name, hmacKey } = info.probe;
  const before = await objectGets(info, cluster, namespace, name);
  const object = await fleet.ask<Record<string, unknown>>({ type: 'probe', version: '1.0.1' });
  const event = signedEvent(cluster, hmacKey, upgradeEvent(object, '1.0.1', 2, new Date()));
  const sent = Date.now();
  const response = await fetch(`${url}${event.path}`, {
    method: 'POST',
    headers: event.headers,
    body: event.body,
  });
  await response.arrayBuffer();
  while ((await objectGets(info, cluster, namespace, name)) === before) {
    if (Date.now() - sent > 60_000) return Number.POSITIVE_INFINITY;
    await sleep(5);
  }
  return Date.now() - sent;
}

async function startup(spec: ScaleSpec) {
  const fleet = Child.fork('scale-fleet-process.js', { type: 'start', spec });
  const { info } = await fleet.next<{ info: ScaleFleetInfo }>('ready');
  // The gateway runs as in the image (the Dockerfile's Node flags) and its pod (the memory limit
  // its size is given in docs/operations.md), unless the spec says unconstrained.
  const pod =
    spec.unconstrained === true ? undefined : podCgroup('gateway', podLimitBytes(spec.pipelines));
  const gateway = Child.fork(
    'scale-gateway-process.js',
    { type: 'start', spec, fleet: info },
    [...productionNodeFlags(), ...extraGatewayFlags()],
    pod,
  );
  // The one-core pace: pinned before it builds anything; threads started later inherit it.
  if (paceOf(spec.pace).oneCore) pinToOneCore(gateway.process.pid ?? 0);
  const atReady = await gateway.next<{ readyMs: number; url: string }>('at-ready');
  const eventToReadMs = await eventAtReadiness(fleet, info, atReady.url);
  const ready = await gateway.next<{ startup: { evaluatedMs: number; statusesWrittenMs: number } }>(
    'ready',
  );
  const probeGets = await objectGets(
    info,
    info.probe.cluster,
    info.probe.namespace,
    info.probe.name,
  );
  const startupGets = delta((await reads(info)).gets, {}).total - probeGets;
  return {
    spec,
    fleet,
    gateway,
    info,
    atReady,
    eventToReadMs,
    evaluatedMs: ready.startup.evaluatedMs,
    statusesWrittenMs: ready.startup.statusesWrittenMs,
    startupGets,
  };
}

/** Measures one size and layout; both children are stopped before it resolves. */
export async function measureScale(spec: ScaleSpec): Promise<ScaleResult> {
  const s = await startup(spec);
  try {
    const before = await reads(s.info);
    const cpuBefore = await s.gateway.ask<GatewaySample>({ type: 'sample' });
    const pass = await s.gateway.ask<ResyncReport>({ type: 'resync' });
    await s.gateway.ask({ type: 'idle' });
    const afterPass = await reads(s.info);
    const cpuAfter = await s.gateway.ask<GatewaySample>({ type: 'sample' });
    await s.fleet.ask({ type: 'roll', fraction: 0.8, version: '2.0.0' });
    const waveStart = Date.now();
    const wavePass = await s.gateway.ask<ResyncReport>({ type: 'resync' });
    await s.gateway.ask({ type: 'idle' });
    const waveMs = Date.now() - waveStart;
    const afterWave = await reads(s.info);
    const gatewayCpus = paceOf(s.spec.pace).oneCore
      ? allowedCpus(s.gateway.process.pid ?? 0)
      : undefined;
    const end = await s.gateway.ask<GatewaySample>({ type: 'sample' });
    return {
      spec,
      targets: spec.pipelines * 6,
      buildMs: s.info.buildMs,
      readyMs: s.atReady.readyMs,
      evaluatedMs: s.evaluatedMs,
      statusesWrittenMs: s.statusesWrittenMs,
      startupGets: s.startupGets,
      eventToReadMs: s.eventToReadMs,
      passMs: pass.durationMs,
      listsPerPassMaxPerCluster: delta(afterPass.lists, before.lists).maxPerCluster,
      getsDuringPass: delta(afterPass.gets, before.gets).total,
      passCpuMs: cpuAfter.cpuMs - cpuBefore.cpuMs,
      wavePromotions: end.promotions - cpuAfter.promotions,
      // The wave pass's LISTs are the plain pass's (same objects, same pages); the rest are the
      // confirmation's, in the round (inside the pass) or in the checks.
      waveReads: readsBetween(afterWave, afterPass) - readsBetween(afterPass, before),
      waveMs,
      waveConfirmation: wavePass.confirmation,
      gatewayCpus,
      // The limit the gateway saw: a cgroup it could not join leaves it unconstrained.
      podLimitBytes: end.podLimitBytes,
      peakRssBytes: end.rssMaxBytes,
      peakUsage: end.peak,
      endHeapUsedBytes: end.heapUsedBytes,
      endRssBytes: end.rssBytes,
      fleetRssBytes: await s.fleet.ask<number>({ type: 'rss' }),
    };
  } finally {
    await s.gateway.stop();
    await s.fleet.stop();
  }
}

/** The sizes to run: quick mode (CI) runs the smallest only. */
export function scaleSizes(quick: boolean): ScaleSpec[] {
  const sizes: [number, number][] = quick
    ? [[100, 5]]
    : [
        [100, 5],
        [1_000, 20],
        [10_000, 50],
      ];
  const layouts: Layout[] = ['env', 'app'];
  return sizes.flatMap(([pipelines, clusters]) =>
    layouts.map((layout) => ({ pipelines, clusters, layout })),
  );
}
