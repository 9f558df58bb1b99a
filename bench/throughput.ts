/**
 * Part (a): signed Flux events accepted per second through the real ingress versus a bare
 * fastify route, and versus the minimal reference route (raw body, one HMAC, ajv,
 * enqueue), measured in turns (bare, reference, gateway, bare, ...) by the same client with the
 * same concurrency and duration; each reported ratio is the median of per-round ratios.
 */
import { mergeHistograms, summarize } from './histogram.js';
import type { LatencySummary } from './histogram.js';
import type { LoadClient } from './load.js';
import type { LoadResult, LoadSpec } from './load-types.js';
import { processCpu } from './proc-cpu.js';
import type { CpuTimes } from './proc-cpu.js';
import { EVENT_CLUSTER } from './servers.js';
import type { GatewayUnderTest, ServerUnderTest, SignedEvent } from './servers.js';

/** How hard and how long to drive each side. */
export interface ThroughputOptions {
  connections: number;
  warmupMs: number;
  roundMs: number;
  rounds: number;
}

/** The three servers compared, in the order each round runs them. */
export const SIDES = ['bare', 'reference', 'gateway'] as const;
export type Side = (typeof SIDES)[number];

/** One measured round of one side. */
export interface SideRound {
  /** 202 responses per second. */
  acceptedRps: number;
  completed: number;
  /** Responses other than 202, plus requests that got no response. */
  failures: number;
  statuses: Record<string, number>;
  latency: LatencySummary;
  /** Share of one core the load client used (near 1 = the client, not the server, set the pace). */
  clientCpuShare: number;
  /** Load client CPU per completed request, µs. */
  clientCpuUsPerRequest: number;
  /** Share of one core the server's process used (all threads); undefined off Linux. */
  serverCpuShare?: number;
  /** Server CPU (user + system) per completed request, µs; undefined off Linux. */
  serverCpuUsPerRequest?: number;
  /** Of which system time (the kernel: socket reads, writev, epoll), µs per request. */
  serverSystemUsPerRequest?: number;
  /** Times the server's event loop blocked for I/O, per request (low = requests come batched). */
  serverBlocksPerRequest?: number;
  /** Times the client's event loop blocked for I/O, per request. */
  clientBlocksPerRequest: number;
}

/** All rounds of one side. */
export interface SideResult {
  rounds: SideRound[];
  medianAcceptedRps: number;
  /** Pooled over every measured round of the side. */
  latency: LatencySummary;
  failures: number;
}

/** One ratio, per round and its median. */
export interface RatioSeries {
  perRound: number[];
  median: number;
}

/** The outcome of part (a). */
export interface ThroughputResult {
  options: ThroughputOptions;
  gateway: SideResult;
  /** The minimal reference route (reference-process.ts). */
  reference: SideResult;
  bare: SideResult;
  ratios: {
    /** Calibration: the gateway against the bare route. */
    gatewayToBare: RatioSeries;
    /** The harness's calibration: this route was specified at 0.78x. */
    referenceToBare: RatioSeries;
    gatewayToReference: RatioSeries;
  };
  /** GETs the gateway made on the event's cluster during its measured rounds. */
  gatewayReadsDuringLoad: number;
  /** The hint queue's counters after the last round. */
  hintQueue: Record<string, number>;
  /** Client process RSS at its largest (bytes). */
  clientRssMaxBytes: number;
}

/** Median of a non-empty list (mean of the middle two for even lengths). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return 0;
  if (sorted.length % 2 === 1) return sorted[mid] ?? 0;
  return ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/** The load spec for `event` against `server`. */
export function specFor(
  server: ServerUnderTest,
  event: SignedEvent,
  connections: number,
  limits: { durationMs?: number; requests?: number },
): LoadSpec {
  const budget = limits.durationMs ?? 0;
  return {
    host: server.host,
    port: server.port,
    method: 'POST',
    path: event.path,
    headers: event.headers,
    body: event.body,
    connections,
    ...limits,
    timeoutMs: budget + 30_000,
  };
}

function roundOf(result: LoadResult, before?: CpuTimes, after?: CpuTimes): SideRound {
  const accepted = result.statuses['202'] ?? 0;
  const per = (ms: number) => (result.completed > 0 ? (ms * 1000) / result.completed : 0);
  const round: SideRound = {
    acceptedRps: result.elapsedMs > 0 ? (accepted * 1000) / result.elapsedMs : 0,
    completed: result.completed,
    failures: result.completed - accepted + result.errors,
    statuses: result.statuses,
    latency: summarize(result.latency),
    clientCpuShare: result.elapsedMs > 0 ? result.clientCpuMs / result.elapsedMs : 0,
    clientCpuUsPerRequest: per(result.clientCpuMs),
    clientBlocksPerRequest:
      result.completed > 0 ? result.clientVoluntarySwitches / result.completed : 0,
  };
  if (before !== undefined && after !== undefined && result.elapsedMs > 0) {
    const user = after.userMs - before.userMs;
    const system = after.systemMs - before.systemMs;
    round.serverCpuShare = (user + system) / result.elapsedMs;
    round.serverCpuUsPerRequest = per(user + system);
    round.serverSystemUsPerRequest = per(system);
    const blocks = after.voluntarySwitches - before.voluntarySwitches;
    if (Number.isFinite(blocks) && result.completed > 0)
      round.serverBlocksPerRequest = blocks / result.completed;
  }
  return round;
}

function sideOf(rounds: readonly SideRound[], results: readonly LoadResult[]): SideResult {
  return {
    rounds: [...rounds],
    medianAcceptedRps: median(rounds.map((r) => r.acceptedRps)),
    latency: summarize(mergeHistograms(results.map((r) => r.latency))),
    failures: rounds.reduce((sum, r) => sum + r.failures, 0),
  };
}

function ratioSeries(top: SideResult, bottom: SideResult): RatioSeries {
  const perRound = top.rounds.map((t, i) => {
    const b = bottom.rounds[i]?.acceptedRps ?? 0;
    return b > 0 ? t.acceptedRps / b : 0;
  });
  return { perRound, median: median(perRound) };
}

/**
 * Runs a warm-up of each side, then `rounds` rounds of bare, reference, gateway; `progress`
 * gets one line per round.
 */
export async function measureThroughput(
  client: LoadClient,
  servers: { gateway: GatewayUnderTest; reference: ServerUnderTest; bare: ServerUnderTest },
  options: ThroughputOptions,
  progress: (line: string) => void,
): Promise<ThroughputResult> {
  const { connections, warmupMs, roundMs, rounds } = options;
  const { gateway } = servers;
  const event = gateway.referenced;
  const spec = (side: Side, durationMs: number) =>
    specFor(servers[side], event, connections, { durationMs });

  for (const side of SIDES) {
    await client.run(spec(side, warmupMs));
    // The gateway's hint work continues after its turn; let it drain before the next side.
    if (side === 'gateway') await gateway.idle();
  }

  const results: Record<Side, LoadResult[]> = { bare: [], reference: [], gateway: [] };
  const measured: Record<Side, SideRound[]> = { bare: [], reference: [], gateway: [] };
  let reads = 0;
  let clientRss = 0;
  for (let i = 0; i < rounds; i++) {
    for (const side of SIDES) {
      const readsBefore =
        side === 'gateway' ? await gateway.fleet.count(EVENT_CLUSTER, { verb: 'get' }) : 0;
      const cpuBefore = processCpu(servers[side].pid);
      const result = await client.run(spec(side, roundMs));
      const cpuAfter = processCpu(servers[side].pid);
      if (side === 'gateway') {
        await gateway.idle();
        reads += (await gateway.fleet.count(EVENT_CLUSTER, { verb: 'get' })) - readsBefore;
      }
      results[side].push(result);
      measured[side].push(roundOf(result, cpuBefore, cpuAfter));
      clientRss = Math.max(clientRss, result.clientRssBytes);
    }
    const rps = (side: Side) => (measured[side][i]?.acceptedRps ?? 0).toFixed(0);
    progress(
      `  round ${i + 1}/${rounds}: bare ${rps('bare')}/s, reference ${rps('reference')}/s, ` +
        `gateway ${rps('gateway')}/s`,
    );
  }
  const bare = sideOf(measured.bare, results.bare);
  const reference = sideOf(measured.reference, results.reference);
  const gatewaySide = sideOf(measured.gateway, results.gateway);
  return {
    options,
    gateway: gatewaySide,
    reference,
    bare,
    ratios: {
      gatewayToBare: ratioSeries(gatewaySide, bare),
      referenceToBare: ratioSeries(reference, bare),
      gatewayToReference: ratioSeries(gatewaySide, reference),
    },
    gatewayReadsDuringLoad: reads,
    hintQueue: await gateway.hintStats(),
    clientRssMaxBytes: clientRss,
  };
}
