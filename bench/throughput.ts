/**
 * Part (a): signed Flux events accepted per second through the real ingress versus a bare
 * fastify route, measured alternately (gateway, bare, gateway, bare, ...) by the same client
 * with the same concurrency and duration; the reported ratio is the median of per-pair ratios.
 */
import { mergeHistograms, summarize } from './histogram.js';
import type { LatencySummary } from './histogram.js';
import type { LoadClient } from './load.js';
import type { LoadResult, LoadSpec } from './load-types.js';
import { EVENT_CLUSTER } from './servers.js';
import type { GatewayUnderTest, ServerUnderTest, SignedEvent } from './servers.js';

/** How hard and how long to drive each side. */
export interface ThroughputOptions {
  connections: number;
  warmupMs: number;
  roundMs: number;
  rounds: number;
}

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
}

/** All rounds of one side. */
export interface SideResult {
  rounds: SideRound[];
  medianAcceptedRps: number;
  /** Pooled over every measured round of the side. */
  latency: LatencySummary;
  failures: number;
}

/** The outcome of part (a). */
export interface ThroughputResult {
  options: ThroughputOptions;
  gateway: SideResult;
  bare: SideResult;
  /** gateway / bare, per round pair. */
  ratios: number[];
  medianRatio: number;
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

function roundOf(result: LoadResult): SideRound {
  const accepted = result.statuses['202'] ?? 0;
  return {
    acceptedRps: result.elapsedMs > 0 ? (accepted * 1000) / result.elapsedMs : 0,
    completed: result.completed,
    failures: result.completed - accepted + result.errors,
    statuses: result.statuses,
    latency: summarize(result.latency),
    clientCpuShare: result.elapsedMs > 0 ? result.clientCpuMs / result.elapsedMs : 0,
  };
}

function sideOf(results: readonly LoadResult[]): SideResult {
  const rounds = results.map(roundOf);
  return {
    rounds,
    medianAcceptedRps: median(rounds.map((r) => r.acceptedRps)),
    latency: summarize(mergeHistograms(results.map((r) => r.latency))),
    failures: rounds.reduce((sum, r) => sum + r.failures, 0),
  };
}

/** Runs warm-ups, then `rounds` alternating pairs; `progress` gets one line per round. */
export async function measureThroughput(
  client: LoadClient,
  gateway: GatewayUnderTest,
  bare: ServerUnderTest,
  options: ThroughputOptions,
  progress: (line: string) => void,
): Promise<ThroughputResult> {
  const { connections, warmupMs, roundMs, rounds } = options;
  const event = gateway.referenced;
  const gatewaySpec = (durationMs: number) => specFor(gateway, event, connections, { durationMs });
  const bareSpec = (durationMs: number) => specFor(bare, event, connections, { durationMs });
  // The gateway's hint work continues after its round; let it drain before the bare round.
  const settle = () => gateway.idle();

  await client.run(gatewaySpec(warmupMs));
  await settle();
  await client.run(bareSpec(warmupMs));

  const gatewayResults: LoadResult[] = [];
  const bareResults: LoadResult[] = [];
  let reads = 0;
  let clientRss = 0;
  for (let i = 0; i < rounds; i++) {
    const readsBefore = await gateway.fleet.count(EVENT_CLUSTER, { verb: 'get' });
    const g = await client.run(gatewaySpec(roundMs));
    await settle();
    reads += (await gateway.fleet.count(EVENT_CLUSTER, { verb: 'get' })) - readsBefore;
    const b = await client.run(bareSpec(roundMs));
    gatewayResults.push(g);
    bareResults.push(b);
    clientRss = Math.max(clientRss, g.clientRssBytes, b.clientRssBytes);
    progress(
      `  round ${i + 1}/${rounds}: gateway ${g.rps.toFixed(0)} req/s, bare ${b.rps.toFixed(0)} req/s`,
    );
  }
  const gatewaySide = sideOf(gatewayResults);
  const bareSide = sideOf(bareResults);
  const ratios = gatewaySide.rounds.map((g, i) => {
    const b = bareSide.rounds[i]?.acceptedRps ?? 0;
    return b > 0 ? g.acceptedRps / b : 0;
  });
  return {
    options,
    gateway: gatewaySide,
    bare: bareSide,
    ratios,
    medianRatio: median(ratios),
    gatewayReadsDuringLoad: reads,
    hintQueue: await gateway.hintStats(),
    clientRssMaxBytes: clientRss,
  };
}
