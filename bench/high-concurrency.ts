/**
 * Part (a'): the ingress's tail latency at 100 connections (no stalls). The same
 * signed event as (a), driven by the same load client at 100 connections instead of 32, in
 * alternating rounds of the gateway and the reference route after a warm-up of each; the
 * latency of every round of a side is pooled into one histogram. Closed-loop: each connection
 * sends its next request when the last is answered, so the median is about connections / rate
 * and a stall (a long GC, a synchronous pass) shows as the p99 and the maximum.
 */
import { mergeHistograms, summarize, type LatencySummary } from './histogram.js';
import type { LoadClient } from './load.js';
import type { LoadResult } from './load-types.js';
import type { BarResult } from './report.js';
import type { GatewayUnderTest, ServerUnderTest } from './servers.js';
import { median, specFor } from './throughput.js';

/** The bar for the gateway's p99 at 100 connections (ms). */
export const MAX_P99_AT_100_MS = 50;
const CONNECTIONS = 100;

/** One side's figures at 100 connections. */
export interface TailSide {
  /** Accepted events per second, median of the rounds. */
  medianAcceptedRps: number;
  latency: LatencySummary;
  /** Responses other than 202, plus requests without a response. */
  failures: number;
}

/** Part (a')'s result. */
export interface TailResult {
  connections: number;
  rounds: number;
  roundMs: number;
  gateway: TailSide;
  reference: TailSide;
}

function sideOf(results: readonly LoadResult[]): TailSide {
  const rates = results.map((r) =>
    r.elapsedMs > 0 ? ((r.statuses['202'] ?? 0) * 1000) / r.elapsedMs : 0,
  );
  return {
    medianAcceptedRps: median(rates),
    latency: summarize(mergeHistograms(results.map((r) => r.latency))),
    failures: results.reduce(
      (sum, r) => sum + r.completed - (r.statuses['202'] ?? 0) + r.errors,
      0,
    ),
  };
}

/** Runs a warm-up of each side, then `rounds` rounds of reference, gateway at 100 connections. */
export async function measureTail(
  client: LoadClient,
  servers: { gateway: GatewayUnderTest; reference: ServerUnderTest },
  options: { warmupMs: number; roundMs: number; rounds: number },
): Promise<TailResult> {
  const { gateway } = servers;
  const spec = (server: ServerUnderTest, durationMs: number) =>
    specFor(server, gateway.referenced, CONNECTIONS, { durationMs });
  const results = { gateway: [] as LoadResult[], reference: [] as LoadResult[] };
  for (const side of ['reference', 'gateway'] as const) {
    await client.run(spec(servers[side], options.warmupMs));
    await gateway.idle();
  }
  for (let i = 0; i < options.rounds; i++)
    for (const side of ['reference', 'gateway'] as const) {
      results[side].push(await client.run(spec(servers[side], options.roundMs)));
      // The gateway's hint work continues after its turn; let it drain before the next side.
      await gateway.idle();
    }
  return {
    ...{ connections: CONNECTIONS, rounds: options.rounds, roundMs: options.roundMs },
    gateway: sideOf(results.gateway),
    reference: sideOf(results.reference),
  };
}

const ms = (value: number) => `${value.toFixed(2)} ms`;

/** The report's line for part (a'). */
export function tailLine(tail: TailResult): string {
  const side = (name: string, s: TailSide) =>
    `${name} ${s.medianAcceptedRps.toFixed(0)}/s, p50 ${ms(s.latency.p50Ms)}, p99 ${ms(s.latency.p99Ms)}, p99.9 ${ms(s.latency.p999Ms)}, max ${ms(s.latency.maxMs)}`;
  return (
    `(a') at ${String(tail.connections)} connections, ${String(tail.rounds)} x ${String(tail.roundMs)} ms rounds per side: ` +
    `${side('gateway', tail.gateway)}; ${side('reference', tail.reference)}`
  );
}

/** Part (a')'s bars: the gateway's p99 at 100 connections, and every event accepted. */
export function tailBars(tail: TailResult): BarResult[] {
  return [
    {
      name: `gateway p99 latency at ${String(tail.connections)} connections`,
      measured: ms(tail.gateway.latency.p99Ms),
      bar: `< ${String(MAX_P99_AT_100_MS)} ms`,
      pass: tail.gateway.latency.p99Ms < MAX_P99_AT_100_MS,
    },
    {
      name: `gateway responses other than 202 at ${String(tail.connections)} connections`,
      measured: String(tail.gateway.failures),
      bar: '= 0',
      pass: tail.gateway.failures === 0,
    },
  ];
}
