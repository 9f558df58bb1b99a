/**
 * The bars the benchmark is held to, and the human-readable tables it prints.
 */
import type { BurstResult } from './burst.js';
import type { MemoryReport } from './memory.js';
import type { ThroughputResult } from './throughput.js';

/** One bar: a measured value, its limit and whether it passed. */
export interface BarResult {
  name: string;
  measured: string;
  bar: string;
  pass: boolean;
}

/** Lowest acceptable gateway/bare ratio of accepted events per second. */
export const MIN_RATIO = 0.7;
/** Highest acceptable p99 latency of the real ingress under the benchmark load (ms). */
export const MAX_P99_MS = 10;
/** Most reads of the named object one burst of identical events may cause. */
export const MAX_READS_PER_BURST = 2;
/** Largest acceptable resident set size through the run (MiB). */
export const MAX_RSS_MIB = 150;

const MIB = 1024 * 1024;

/** Evaluates every bar. */
export function evaluateBars(
  throughput: ThroughputResult,
  bursts: readonly BurstResult[],
  memory: MemoryReport,
): BarResult[] {
  const bars: BarResult[] = [
    {
      name: 'accepted events/s, gateway / bare (median)',
      measured: `${throughput.medianRatio.toFixed(2)}x`,
      bar: `>= ${MIN_RATIO.toFixed(2)}x`,
      pass: throughput.medianRatio >= MIN_RATIO,
    },
    {
      name: 'gateway p99 latency at that load',
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
  bars.push({
    name: 'max RSS through the run',
    measured: `${(memory.rssMaxBytes / MIB).toFixed(1)} MiB`,
    bar: `< ${MAX_RSS_MIB} MiB`,
    pass: memory.rssMaxBytes < MAX_RSS_MIB * MIB,
  });
  return bars;
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

/** The side-by-side throughput table. */
export function throughputTable(result: ThroughputResult): string {
  const rows = (['gateway', 'bare'] as const).map((side) => {
    const s = result[side];
    return [
      side === 'gateway' ? 'real ingress (createGateway)' : 'bare fastify 202',
      s.medianAcceptedRps.toFixed(0),
      s.rounds.map((r) => r.acceptedRps.toFixed(0)).join(' / '),
      ms(s.latency.p50Ms),
      ms(s.latency.p99Ms),
      ms(s.latency.maxMs),
      String(s.failures),
      s.rounds.map((r) => `${Math.round(r.clientCpuShare * 100)}%`).join(' / '),
    ];
  });
  return table(
    ['server', 'median 202/s', 'per round', 'p50 ms', 'p99 ms', 'max ms', 'non-202', 'client CPU'],
    rows,
  );
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
