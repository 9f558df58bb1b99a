/**
 * The bars the benchmark is held to, and the human-readable tables it prints.
 */
import type { BurstResult } from './burst.js';
import { idleBar } from './idle-report.js';
import type { IdleResult } from './idle-types.js';
import type { ImportCost } from './import-cost-process.js';
import type { MemoryReport } from './memory.js';
import { median, SIDES } from './throughput.js';
import type { RatioSeries, Side, SideRound, ThroughputResult } from './throughput.js';

/** One bar: a measured value, its limit and whether it passed. */
export interface BarResult {
  name: string;
  measured: string;
  bar: string;
  pass: boolean;
}

/**
 * Gateway/bare: printed in the calibration lines, not a bar
 * (docs/adr/0003-ingress-bars-against-a-reference-route.md).
 */
export const MIN_RATIO = 0.7;
/** Lowest acceptable gateway/reference-route ratio of accepted events per second, on Node 24. */
export const MIN_REFERENCE_RATIO = 0.9;
/** The Node.js line the throughput bar is set on: the image's runtime. */
export const BAR_NODE_MAJOR = 24;
/** Most the gateway's peak RSS may exceed a bare route's plus @kubernetes/client-node's import. */
export const RSS_HEADROOM_BYTES = 32 * 1024 * 1024;
/**
 * The calibration the bar was specified with: the minimal reference route (raw body, HMAC, ajv,
 * enqueue) at this ratio to a bare route. Informational, not a bar.
 */
export const SPECIFIED_REFERENCE_RATIO = 0.78;
/** Highest acceptable p99 latency of the real ingress under the benchmark load (ms). */
export const MAX_P99_MS = 10;
/** Most reads of the named object one burst of identical events may cause. */
export const MAX_READS_PER_BURST = 2;
/** The fixed RSS bar used where the bare route's peak cannot be read (not Linux). */
export const MAX_RSS_BYTES = 150_000_000;

const MIB = 1024 * 1024;
const mib = (bytes: number) => `${(bytes / MIB).toFixed(1)} MiB`;

/** Evaluates every bar (the idle fleet's when part (f) ran). */
export function evaluateBars(
  throughput: ThroughputResult,
  bursts: readonly BurstResult[],
  memory: MemoryReport,
  context: MemoryContext,
  idle?: IdleResult,
  nodeMajor = Number(process.versions.node.split('.')[0]),
): BarResult[] {
  const ratio = throughput.ratios.gatewayToReference.median;
  const barred = nodeMajor === BAR_NODE_MAJOR;
  const bars: BarResult[] = [
    {
      name: 'accepted events/s, gateway / reference route (median)',
      measured: `${ratio.toFixed(2)}x`,
      bar: barred
        ? `>= ${MIN_REFERENCE_RATIO.toFixed(2)}x`
        : `reported (bar on Node ${String(BAR_NODE_MAJOR)})`,
      pass: !barred || ratio >= MIN_REFERENCE_RATIO,
    },
    {
      name: 'gateway p99 latency at that load (32 connections)',
      measured: `${throughput.gateway.latency.p99Ms.toFixed(2)} ms`,
      bar: `< ${MAX_P99_MS} ms`,
      pass: throughput.gateway.latency.p99Ms < MAX_P99_MS,
    },
    {
      name: 'gateway responses other than 202',
      measured: String(throughput.gateway.failures),
      bar: '= 0',
      pass: throughput.gateway.failures === 0,
    },
  ];
  for (const burst of bursts) {
    bars.push(
      burst.referenced
        ? {
            name: `reads per burst of ${burst.events} (referenced)`,
            measured: `${burst.gets} (${burst.getsPerEvent.toFixed(3)}/event)`,
            bar: `<= ${MAX_READS_PER_BURST}`,
            pass: burst.gets <= MAX_READS_PER_BURST && burst.accepted === burst.events,
          }
        : {
            name: `reads per burst of ${burst.events} (unreferenced)`,
            measured: String(burst.gets),
            bar: '= 0',
            pass: burst.gets === 0 && burst.accepted === burst.events,
          },
    );
  }
  bars.push(rssBar(memory, context));
  if (idle !== undefined) bars.push(idleBar(idle));
  return bars;
}

/**
 * The gateway's peak RSS against a bare fastify route's peak under the same load plus what
 * importing @kubernetes/client-node costs, plus RSS_HEADROOM_BYTES.
 */
function rssBar(memory: MemoryReport, context: MemoryContext): BarResult {
  const { baselineRssBytes, clientNodeRssBytes } = context.importCost;
  const limit =
    context.barePeakRssBytes === undefined
      ? MAX_RSS_BYTES
      : context.barePeakRssBytes + (clientNodeRssBytes - baselineRssBytes) + RSS_HEADROOM_BYTES;
  const how =
    context.barePeakRssBytes === undefined
      ? ''
      : ' (bare route peak + client-node import + 32 MiB)';
  return {
    name: 'max RSS through the run',
    measured: mib(memory.rssMaxBytes),
    bar: `<= ${mib(limit)}${how}`,
    pass: memory.rssMaxBytes <= limit,
  };
}

/** Left-aligned columns with a rule under the header. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

const ms = (value: number) => value.toFixed(2);

const SIDE_LABELS: Record<Side, string> = {
  bare: 'bare fastify 202',
  reference: 'reference route',
  gateway: 'real ingress (createGateway)',
};

const perRound = (rounds: readonly SideRound[], value: (r: SideRound) => string) =>
  rounds.map(value).join(' / ');

/** The side-by-side throughput table, one row per side. */
export function throughputTable(result: ThroughputResult): string {
  const rows = SIDES.map((side) => {
    const s = result[side];
    // Median over the rounds that have the figure ('-' when none has: not Linux).
    const us = (values: (number | undefined)[]) => {
      const known = values.filter((v): v is number => v !== undefined);
      return known.length === 0 ? '-' : median(known).toFixed(1);
    };
    const blocks = (values: (number | undefined)[]) => {
      const known = values.filter((v): v is number => v !== undefined && Number.isFinite(v));
      return known.length === 0 ? '-' : median(known).toFixed(3);
    };
    return [
      SIDE_LABELS[side],
      s.medianAcceptedRps.toFixed(0),
      perRound(s.rounds, (r) => r.acceptedRps.toFixed(0)),
      ms(s.latency.p50Ms),
      ms(s.latency.p99Ms),
      ms(s.latency.maxMs),
      String(s.failures),
      us(s.rounds.map((r) => r.serverCpuUsPerRequest)),
      us(s.rounds.map((r) => r.serverSystemUsPerRequest)),
      perRound(s.rounds, (r) =>
        r.serverCpuShare === undefined ? '-' : `${Math.round(r.serverCpuShare * 100)}%`,
      ),
      us(s.rounds.map((r) => r.clientCpuUsPerRequest)),
      perRound(s.rounds, (r) => `${Math.round(r.clientCpuShare * 100)}%`),
      blocks(s.rounds.map((r) => r.serverBlocksPerRequest)),
      blocks(s.rounds.map((r) => r.clientBlocksPerRequest)),
    ];
  });
  return table(
    [
      'server',
      'median 202/s',
      'per round',
      'p50 ms',
      'p99 ms',
      'max ms',
      'non-202',
      'srv µs/req',
      'of which sys',
      'server CPU',
      'client µs/req',
      'client CPU',
      'srv waits/req',
      'client waits/req',
    ],
    rows,
  );
}

/** The ratios, with the specified calibration next to the bar's ratio. */
export function ratioLines(result: ThroughputResult): string[] {
  const { gatewayToBare, referenceToBare, gatewayToReference } = result.ratios;
  const series = (r: RatioSeries) =>
    `${r.median.toFixed(2)}x (per round ${r.perRound.map((v) => v.toFixed(2)).join(', ')})`;
  const equivalent = MIN_RATIO / SPECIFIED_REFERENCE_RATIO;
  return [
    `gateway / bare: ${series(gatewayToBare)}; bar >= ${MIN_RATIO.toFixed(2)}x`,
    `reference route on this harness: ${series(referenceToBare)} (specified at ${SPECIFIED_REFERENCE_RATIO.toFixed(2)}x)`,
    `gateway / reference: ${series(gatewayToReference)} (the bar corresponds to ` +
      `${MIN_RATIO.toFixed(2)}/${SPECIFIED_REFERENCE_RATIO.toFixed(2)} = ${equivalent.toFixed(2)} of its reference route)`,
  ];
}

/** The burst table. */
export function burstTable(bursts: readonly BurstResult[]): string {
  return table(
    ['object', 'events', '202', 'burst ms', 'GETs', 'GETs/event', 'requests by cluster'],
    bursts.map((b) => [
      `${b.object}${b.referenced ? '' : ' (unreferenced)'}`,
      String(b.events),
      String(b.accepted),
      b.burstMs.toFixed(0),
      String(b.gets),
      b.getsPerEvent.toFixed(3),
      Object.entries(b.requestsByCluster)
        .map(([name, n]) => `${name}=${n}`)
        .join(' '),
    ]),
  );
}

/** The bars table with PASS/FAIL. */
export function barsTable(bars: readonly BarResult[]): string {
  return table(
    ['bar', 'measured', 'target', 'result'],
    bars.map((b) => [b.name, b.measured, b.bar, b.pass ? 'PASS' : 'FAIL']),
  );
}

/** What the memory bar is measured against: the same Node.js without the gateway. */
export interface MemoryContext {
  /** Peak RSS of the bare fastify route's process over the run (same load); undefined off Linux. */
  barePeakRssBytes: number | undefined;
  /** Peak RSS of the reference route's process over the run; undefined off Linux. */
  referencePeakRssBytes: number | undefined;
  importCost: ImportCost;
}

/** Lines that put the gateway's RSS next to what the runtime and its dependencies cost alone. */
export function memoryContextLines(memory: MemoryReport, context: MemoryContext): string[] {
  const peak = (bytes: number | undefined) => (bytes === undefined ? '-' : mib(bytes));
  const { baselineRssBytes, clientNodeRssBytes, gatewayModulesRssBytes } = context.importCost;
  return [
    ...memory.phases.map(
      (p) =>
        `  RSS max ${mib(p.rssMaxBytes)} (heap used max ${mib(p.heapUsedMaxBytes)}) during ${p.phase}`,
    ),
    `  same Node.js and load, other servers: bare fastify route peak ${peak(context.barePeakRssBytes)}, ` +
      `reference route peak ${peak(context.referencePeakRssBytes)}`,
    `  resident after import and a full GC: node alone ${mib(baselineRssBytes)}, ` +
      `+ @kubernetes/client-node ${mib(clientNodeRssBytes - baselineRssBytes)}, ` +
      `+ the gateway's bundle ${mib(gatewayModulesRssBytes - clientNodeRssBytes)}`,
  ];
}
