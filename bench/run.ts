/**
 * `npm run bench`: the gateway's performance bars in one run.
 *   (a) signed Flux events accepted per second through the real ingress vs the reference
 *       route (a minimal route: raw body, one HMAC, ajv, enqueue) and a bare fastify route
 *       (median ratios of alternating rounds), and the ingress's p50/p99 latency;
 *  (a') the ingress's tail latency at 100 connections beside the reference route's;
 *   (b) reads of the named object per burst of identical events (and 0 for unreferenced);
 *   (c) the largest resident set size through the run;
 *   (d) the round trip of a signed approval against kube-sim (p50/p99; reported, not barred);
 *   (e) scale: N pipelines x 3 environments x 2 targets over C clusters (scale.ts);
 *   (f) status writes of an idle fleet of 1,000 Pipelines on two replicas (idle.ts);
 *   (g) the web view: the fleet page's render time and bytes and one update's time at 1,000
 *       Pipelines, and ingress throughput with 50 open live streams against none (ui.ts).
 * Prints a table and writes bench/results/latest.json. Exit code 0 even when a bar fails,
 * unless --strict. BENCH_QUICK=1 (or --quick) runs the short CI version. See docs/benchmarks.md.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Level } from 'pino';
import { APP_NAME } from '@promotion-gateway/demo';
import { repoRoot } from './paths.js';
import { approvalLine, measureApprovals } from './approvals.js';
import { measureBurst } from './burst.js';
import { idleSpec, measureIdle } from './idle.js';
import { idleLines } from './idle-report.js';
import { scaleSizes } from './scale.js';
import { peakMemoryTable, scaleGoals, scaleTable } from './scale-report.js';
import { runScale, runSharded } from './scale-run.js';
import { shardedSizes } from './scale-shards.js';
import { shardedGoals, shardedTable } from './scale-shards-report.js';
import type { BurstResult } from './burst.js';
import { FleetHandle } from './fleet.js';
import { LoadClient } from './load.js';
import { applyProductionEnvironment, productionNodeFlags } from './node-flags.js';
import {
  barsTable,
  burstTable,
  evaluateBars,
  SPECIFIED_REFERENCE_RATIO,
  memoryContextLines,
  MIN_RATIO,
  ratioLines,
  throughputTable,
} from './report.js';
import {
  EVENT_CLUSTER,
  measureImportCost,
  startBareServer,
  startGateway,
  startReferenceServer,
  UNREFERENCED_NAME,
} from './servers.js';
import type { GatewayUnderTest, ServerUnderTest } from './servers.js';
import { processPeakRss } from './proc-cpu.js';
import type { MemoryContext } from './report.js';
import { measureThroughput } from './throughput.js';
import { measureTail, tailBars, tailLine } from './high-concurrency.js';
import { measureView } from './ui.js';
import { viewBars, viewLines } from './ui-report.js';
import { measureWhatIf, whatIfBars, whatIfLines } from './what-if.js';
import type { ThroughputOptions } from './throughput.js';

/** Per-mode settings. */
interface Mode {
  name: 'quick' | 'full';
  throughput: ThroughputOptions;
  burstSizes: number[];
  /** Approvals sent one after another in part (d). */
  approvals: number;
  /** Part (a'): rounds at 100 connections. */
  tail: { warmupMs: number; roundMs: number; rounds: number };
  /** Part (h): what-if calls per side. */
  whatIfCalls: number;
}

const MODES: Record<Mode['name'], Mode> = {
  quick: {
    name: 'quick',
    throughput: { connections: 32, warmupMs: 1_500, roundMs: 3_000, rounds: 2 },
    burstSizes: [100, 1000],
    approvals: 50,
    tail: { warmupMs: 1_000, roundMs: 3_000, rounds: 2 },
    whatIfCalls: 5,
  },
  full: {
    name: 'full',
    throughput: { connections: 32, warmupMs: 3_000, roundMs: 10_000, rounds: 5 },
    burstSizes: [100, 1000],
    approvals: 200,
    tail: { warmupMs: 2_000, roundMs: 10_000, rounds: 3 },
    whatIfCalls: 20,
  },
};

/** Whole-run watchdog: the benchmark ends by itself even if something hangs (the full run's
 * scale section builds a 10,000-pipeline fleet twice). */
const WATCHDOG_MS = 40 * 60_000;

function options(): { mode: Mode; strict: boolean; logLevel: Level } {
  const { values } = parseArgs({
    options: {
      strict: { type: 'boolean', default: false },
      quick: { type: 'boolean', default: false },
      connections: { type: 'string' },
      rounds: { type: 'string' },
      'round-ms': { type: 'string' },
      'log-level': { type: 'string', default: 'info' },
    },
    strict: true,
  });
  const quick = values.quick || process.env.BENCH_QUICK === '1';
  const base = MODES[quick ? 'quick' : 'full'];
  const positive = (text: string | undefined, fallback: number): number => {
    const n = text === undefined ? fallback : Number(text);
    if (!Number.isInteger(n) || n <= 0) throw new Error(`expected a positive integer: ${text}`);
    return n;
  };
  const mode: Mode = {
    ...base,
    throughput: {
      ...base.throughput,
      connections: positive(values.connections, base.throughput.connections),
      rounds: positive(values.rounds, base.throughput.rounds),
      roundMs: positive(values['round-ms'], base.throughput.roundMs),
    },
  };
  return { mode, strict: values.strict, logLevel: values['log-level'] as Level };
}

/** One request through fetch to show `server` takes the gateway's event as production would. */
async function checkAccepts(server: ServerUnderTest, gateway: GatewayUnderTest): Promise<string> {
  const { path, headers, body } = gateway.referenced;
  const response = await fetch(`http://${server.host}:${server.port}${path}`, {
    method: 'POST',
    headers,
    body,
  });
  const text = await response.text();
  if (response.status !== 202)
    throw new Error(`:${server.port} answered ${response.status} to a signed event: ${text}`);
  return text;
}

async function main(): Promise<number> {
  const { mode, strict, logLevel } = options();
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const started = new Date();
  const nodeFlags = productionNodeFlags();
  applyProductionEnvironment();
  log(
    `promotion-gateway bench (${mode.name}): node ${process.version}, ${cpus().length} CPUs, ` +
      `${mode.throughput.connections} connections, ${mode.throughput.rounds} x ${mode.throughput.roundMs} ms rounds per side, gateway log level ${logLevel}`,
  );
  log(
    `gateway, reference and bare servers run with the Dockerfile's node flags: ${nodeFlags.join(' ') || '(none)'}` +
      (process.execArgv.length > 0 ? `, then ${process.execArgv.join(' ')}` : ''),
  );

  // Before anything else runs, so nothing competes with it for the CPU.
  const importCost = await measureImportCost(nodeFlags);
  const client = await LoadClient.start();
  let fleet: FleetHandle | undefined;
  let gateway: GatewayUnderTest | undefined;
  let bare: ServerUnderTest | undefined;
  let reference: ServerUnderTest | undefined;
  try {
    fleet = await FleetHandle.start();
    gateway = await startGateway(fleet, logLevel, nodeFlags);
    bare = await startBareServer(nodeFlags);
    reference = await startReferenceServer(nodeFlags, fleet.info.hmacKeys[EVENT_CLUSTER] ?? '');
    const firstAnswer = await checkAccepts(gateway, gateway);
    const referenceAnswer = await checkAccepts(reference, gateway);
    await gateway.memoryPhase('throughput (bare, reference and gateway rounds)');
    log(`gateway on :${gateway.port} answered a signed event with 202 ${firstAnswer}`);
    log(`reference route on :${reference.port} answered it with 202 ${referenceAnswer}`);
    log('(a) throughput, rounds in turn:');
    const throughput = await measureThroughput(
      client,
      { gateway, reference, bare },
      mode.throughput,
      log,
    );
    log(`(a') at 100 connections:`);
    const tail = await measureTail(client, { gateway, reference }, mode.tail);
    const memoryContext: MemoryContext = {
      barePeakRssBytes: processPeakRss(bare.pid),
      referencePeakRssBytes: processPeakRss(reference.pid),
      importCost,
    };
    await gateway.memoryPhase('duplicate bursts');
    let fleetRss = await fleet.rss();
    log('(b) duplicate bursts:');
    const bursts: BurstResult[] = [];
    for (const size of mode.burstSizes) {
      bursts.push(await measureBurst(client, gateway, gateway.referenced, APP_NAME, true, size));
      bursts.push(
        await measureBurst(client, gateway, gateway.unreferenced, UNREFERENCED_NAME, false, size),
      );
    }
    log('(g) the web view:');
    const view = await measureView(client, gateway, mode.throughput, mode.name === 'quick');
    const memory = await gateway.memoryReport();
    fleetRss = Math.max(fleetRss, await fleet.rss());
    // Part (d) runs its own fleet and gateway in this process, after the measured ones.
    const approvals = await measureApprovals(mode.approvals);
    log('(e) scale:');
    const scale = await runScale(scaleSizes(mode.name === 'quick'), log);
    log("(e') scale, sharded:");
    const sharded = await runSharded(shardedSizes(mode.name === 'quick'), log);
    const goals = [...scaleGoals(scale), ...shardedGoals(sharded)];
    log('(f) idle fleet:');
    const idle = await measureIdle(idleSpec(mode.name === 'quick'));
    log('(h) what-if:');
    const whatIf = await measureWhatIf(1_000, mode.whatIfCalls);
    const bars = [
      ...evaluateBars(throughput, bursts, memory, memoryContext, idle),
      ...tailBars(tail),
      ...viewBars(view),
      ...whatIfBars(whatIf),
    ];
    const pass = bars.every((b) => b.pass) && goals.every((g) => g.pass);

    log('');
    log(throughputTable(throughput));
    for (const line of ratioLines(throughput)) log(line);
    log(tailLine(tail));
    const q = throughput.hintQueue;
    log(
      `gateway during its rounds: ${throughput.gatewayReadsDuringLoad} GETs on ${EVENT_CLUSTER}; ` +
        `hint queue totals: ${q.queued ?? 0} queued, ${q.coalesced ?? 0} coalesced, ${q.rejected ?? 0} rejected`,
    );
    log('');
    log(burstTable(bursts));
    log('');
    for (const line of viewLines(view)) log(line);
    log('');
    for (const line of whatIfLines(whatIf)) log(line);
    log('');
    log(barsTable(bars));
    const mib = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
    for (const line of memoryContextLines(memory, memoryContext)) log(line);
    log(
      `other processes (not part of the bar): kube-sim fleet ${mib(fleetRss)}, load client ${mib(throughput.clientRssMaxBytes)}`,
    );
    log('');
    log(approvalLine(approvals));
    log('');
    log(scaleTable(scale));
    log('');
    log(peakMemoryTable(scale));
    log('');
    log(shardedTable(sharded));
    log('');
    log(barsTable(goals));
    log('');
    for (const line of idleLines(idle)) log(line);
    log('');

    const results = {
      date: started.toISOString(),
      durationMs: Date.now() - started.getTime(),
      mode: mode.name,
      node: process.version,
      platform: `${process.platform} ${process.arch}`,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? 'unknown',
      totalMemoryBytes: totalmem(),
      gatewayLogLevel: logLevel,
      nodeFlags,
      throughput,
      tail,
      calibration: {
        specifiedReferenceToBare: SPECIFIED_REFERENCE_RATIO,
        referenceToBare: throughput.ratios.referenceToBare.median,
        barAsShareOfSpecifiedReference: MIN_RATIO / SPECIFIED_REFERENCE_RATIO,
        gatewayToReference: throughput.ratios.gatewayToReference.median,
      },
      bursts,
      view,
      approvals,
      scale,
      sharded,
      scaleGoals: goals,
      idle,
      whatIf,
      memory,
      memoryContext,
      otherProcesses: {
        fleetRssBytes: fleetRss,
        loadClientRssMaxBytes: throughput.clientRssMaxBytes,
      },
      bars,
      pass,
    };
    const dir = join(repoRoot(), 'bench', 'results');
    await mkdir(dir, { recursive: true });
    const file = join(dir, 'latest.json');
    await writeFile(file, `${JSON.stringify(results, null, 2)}\n`);
    log(`${pass ? 'all bars PASS' : 'some bars FAIL'}; results in ${file}`);
    return !pass && strict ? 1 : 0;
  } finally {
    await client.stop();
    await bare?.close();
    await reference?.close();
    await gateway?.close();
    await fleet?.stop();
  }
}

const watchdog = setTimeout(() => {
  process.stderr.write(`bench: still running after ${WATCHDOG_MS} ms; giving up\n`);
  process.exit(2);
}, WATCHDOG_MS);
watchdog.unref();

main().then(
  (code) => {
    // Keep-alive sockets of Kubernetes clients may linger; the run is over.
    process.exit(code);
  },
  (err: unknown) => {
    process.stderr.write(
      `bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exit(2);
  },
);
