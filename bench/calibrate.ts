/**
 * `npm run bench:calibrate`: a cross-check of bench/run.ts's harness. The reference route was
 * specified at ~0.78x of a bare fastify route; this harness measures much less. To show the
 * ratios belong to the servers and not to our raw-socket load client, this drives
 * the same three server processes (bare, reference, gateway; production node flags) with
 * standard generators (autocannon, and wrk when on PATH) in the same turn-taking rounds and
 * reports the same three median ratios. Informational: exit 0 unless something crashes.
 * Writes bench/results/calibration.json (or --json PATH). BENCH_QUICK=1 or --quick: short run.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Level } from 'pino';
import { repoRoot } from './paths.js';
import { FleetHandle } from './fleet.js';
import { autocannonGenerator, wrkGenerator } from './generators.js';
import type { Generator, GeneratorResult } from './generators.js';
import { applyProductionEnvironment, productionNodeFlags } from './node-flags.js';
import { processCpu } from './proc-cpu.js';
import { SPECIFIED_REFERENCE_RATIO, table } from './report.js';
import { EVENT_CLUSTER, startBareServer, startGateway, startReferenceServer } from './servers.js';
import type { GatewayUnderTest, ServerUnderTest } from './servers.js';
import { median, SIDES } from './throughput.js';
import type { RatioSeries, Side } from './throughput.js';

/** Whole-run watchdog: the calibration ends by itself even if something hangs. */
const WATCHDOG_MS = 15 * 60_000;
/** Most load time the options may plan, leaving the watchdog room for startup and idle waits. */
const MAX_PLANNED_MS = 12 * 60_000;

/** The ratios bench/run.ts reports: [numerator, denominator] of each, per round. */
const RATIOS = {
  referenceToBare: ['reference', 'bare'],
  gatewayToBare: ['gateway', 'bare'],
  gatewayToReference: ['gateway', 'reference'],
} as const satisfies Record<string, readonly [Side, Side]>;
type RatioName = keyof typeof RATIOS;
const RATIO_NAMES = Object.keys(RATIOS) as RatioName[];

function options() {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      rounds: { type: 'string' },
      'round-ms': { type: 'string' },
      connections: { type: 'string' },
      json: { type: 'string' },
      'log-level': { type: 'string', default: 'info' },
    },
    strict: true,
  });
  const quick = values.quick || process.env.BENCH_QUICK === '1';
  const positive = (text: string | undefined, fallback: number): number => {
    const n = text === undefined ? fallback : Number(text);
    if (!Number.isInteger(n) || n <= 0) throw new Error(`expected a positive integer: ${text}`);
    return n;
  };
  const roundMs = positive(values['round-ms'], quick ? 2_000 : 5_000);
  // wrk takes whole seconds, and both generators must run rounds of the same length.
  if (roundMs % 1000 !== 0) throw new Error(`--round-ms must be whole seconds: ${roundMs}`);
  const connections = values.connections?.split(',') ?? (quick ? ['32'] : ['32', '100']);
  const opts = {
    rounds: positive(values.rounds, quick ? 2 : 3),
    roundMs,
    warmupMs: Math.max(1_000, Math.ceil(roundMs / 2_000) * 1_000),
    connections: connections.map((c) => positive(c.trim(), 0)),
    jsonPath: resolve(values.json ?? join(repoRoot(), 'bench', 'results', 'calibration.json')),
    logLevel: values['log-level'] as Level,
  };
  const planned = 2 * 3 * (opts.warmupMs + opts.connections.length * opts.rounds * roundMs);
  if (planned > MAX_PLANNED_MS)
    throw new Error(`${planned} ms of load planned; at most ${MAX_PLANNED_MS} ms fit the watchdog`);
  return opts;
}

/** One side's run: the generator's figures plus the server's CPU use (saturated near 1). */
type SideRun = GeneratorResult & { serverCpuShare?: number };

/** One side's rounds, their medians and every non-2xx response and dropped request. */
interface SideSummary {
  rounds: SideRun[];
  medianRps: number;
  medianP99Ms: number;
  non2xx: number;
  errors: number;
}

/** Everything one generator measured at one connection count. */
interface Block {
  generator: string;
  connections: number;
  sides: Record<Side, SideSummary>;
  ratios: Record<RatioName, RatioSeries>;
  /** False when any side answered non-2xx or dropped requests: its rate is then not comparable. */
  valid: boolean;
}

type Servers = Record<Side, ServerUnderTest> & { gateway: GatewayUnderTest };
type Load = Parameters<Generator['run']>[1];

const log = (line: string) => process.stdout.write(`${line}\n`);
/** Every server started, for the finally block and the watchdog. */
const started: ServerUnderTest[] = [];

async function runSide(g: Generator, servers: Servers, side: Side, load: Load): Promise<SideRun> {
  const server = servers[side];
  const before = processCpu(server.pid);
  const t0 = performance.now();
  const result = await g.run({ ...server, event: servers.gateway.referenced }, load);
  const elapsedMs = performance.now() - t0;
  const after = processCpu(server.pid);
  // Hints and pipeline checks the gateway queued must not spill into the next bare round.
  if (side === 'gateway') await servers.gateway.idle();
  if (before === undefined || after === undefined) return result;
  const cpuMs = after.userMs + after.systemMs - before.userMs - before.systemMs;
  return { ...result, serverCpuShare: cpuMs / elapsedMs };
}

async function measureBlock(g: Generator, servers: Servers, load: Load, rounds: number) {
  const { connections } = load;
  const runs: Record<Side, SideRun[]> = { bare: [], reference: [], gateway: [] };
  for (let round = 1; round <= rounds; round++) {
    for (const side of SIDES) runs[side].push(await runSide(g, servers, side, load));
    const got = SIDES.map((s) => `${s} ${runs[s].at(-1)?.rps.toFixed(0) ?? '?'}`).join(', ');
    log(`  ${g.name} c=${connections} round ${round}/${rounds}: ${got} req/s`);
  }
  const summary = (side: Side): SideSummary => ({
    rounds: runs[side],
    medianRps: median(runs[side].map((r) => r.rps)),
    medianP99Ms: median(runs[side].map((r) => r.p99Ms)),
    non2xx: runs[side].reduce((sum, r) => sum + r.non2xx, 0),
    errors: runs[side].reduce((sum, r) => sum + r.errors, 0),
  });
  const sides = Object.fromEntries(SIDES.map((s) => [s, summary(s)])) as Block['sides'];
  const ratio = ([num, den]: readonly [Side, Side]): RatioSeries => {
    const perRound = runs[num].map((n, i) => n.rps / (runs[den][i]?.rps ?? Number.NaN));
    return { perRound, median: median(perRound) };
  };
  return {
    generator: g.name,
    connections,
    sides,
    ratios: Object.fromEntries(RATIO_NAMES.map((n) => [n, ratio(RATIOS[n])])) as Block['ratios'],
    valid: SIDES.every((s) => sides[s].non2xx + sides[s].errors === 0),
  } satisfies Block;
}

const x = (r: RatioSeries) => `${r.median.toFixed(2)}x`;

function report(block: Block): void {
  const name = `${block.generator} c=${block.connections}`;
  const rows = SIDES.map((side) => {
    const s = block.sides[side];
    const perRound = (f: (r: SideRun) => string) => s.rounds.map(f).join(' / ');
    return [
      side,
      s.medianRps.toFixed(0),
      perRound((r) => r.rps.toFixed(0)),
      s.medianP99Ms.toFixed(2),
      String(s.non2xx),
      String(s.errors),
      perRound((r) => r.serverCpuShare?.toFixed(2) ?? '-'),
    ];
  });
  const header = ['side', 'median req/s', 'per round', 'p99 ms', 'non-2xx', 'errors', 'server CPU'];
  log(`\n${name}\n${table(header, rows)}`);
  const ratios = RATIO_NAMES.map((n) => `${RATIOS[n].join('/')} ${x(block.ratios[n])}`);
  log(`${name}: ${ratios.join(', ')}`);
  for (const side of SIDES) {
    const { non2xx, errors } = block.sides[side];
    if (non2xx + errors > 0)
      log(`!!! ${name}: ${side} answered ${non2xx} non-2xx, dropped ${errors}: NOT VALID`);
  }
}

async function main(): Promise<number> {
  applyProductionEnvironment();
  const opts = options();
  const nodeFlags = productionNodeFlags();
  const wrk = await wrkGenerator();
  const generators: Generator[] = [autocannonGenerator, ...(wrk === undefined ? [] : [wrk])];
  const start = new Date();
  log(
    `promotion-gateway calibration: node ${process.version}, ${cpus().length} CPUs, ` +
      `${opts.rounds} x ${opts.roundMs} ms rounds per side (warm-up ${opts.warmupMs} ms), ` +
      `connections ${opts.connections.join(', ')}, gateway log level ${opts.logLevel}`,
  );
  log(`servers run with the Dockerfile's node flags: ${nodeFlags.join(' ') || '(none)'}`);
  log(wrk === undefined ? 'wrk: SKIPPED (not on PATH)' : `wrk: ${wrk.path}`);

  let fleet: FleetHandle | undefined;
  try {
    fleet = await FleetHandle.start();
    const gateway = await startGateway(fleet, opts.logLevel, nodeFlags);
    started.push(gateway);
    const bare = await startBareServer(nodeFlags);
    started.push(bare);
    const key = fleet.info.hmacKeys[EVENT_CLUSTER] ?? '';
    const reference = await startReferenceServer(nodeFlags, key);
    started.push(reference);
    const servers = { bare, reference, gateway };
    for (const side of SIDES) {
      // One request by fetch, so an event a server rejects fails here rather than being measured.
      const { path, headers, body } = gateway.referenced;
      const url = `http://${servers[side].host}:${servers[side].port}${path}`;
      const response = await fetch(url, { method: 'POST', headers, body });
      if (response.status !== 202)
        throw new Error(`${side} ${url} answered ${response.status}: ${await response.text()}`);
    }
    log(`bare :${bare.port}, reference :${reference.port}, gateway :${gateway.port} answer 202`);

    const blocks: Block[] = [];
    for (const generator of generators) {
      const warmup = { connections: opts.connections[0] ?? 1, durationMs: opts.warmupMs };
      for (const side of SIDES) await runSide(generator, servers, side, warmup);
      for (const connections of opts.connections) {
        const load = { connections, durationMs: opts.roundMs };
        blocks.push(await measureBlock(generator, servers, load, opts.rounds));
      }
    }

    for (const block of blocks) report(block);
    log(
      `\nsummary, medians of per-round ratios (specified: reference/bare ${SPECIFIED_REFERENCE_RATIO}x)`,
    );
    const rows = blocks.map((b) => [
      b.generator,
      String(b.connections),
      ...RATIO_NAMES.map((n) => x(b.ratios[n])),
      b.sides.bare.medianRps.toFixed(0),
      b.valid ? 'yes' : 'NO (non-2xx or errors)',
    ]);
    if (wrk === undefined) rows.push(['wrk', '-', '-', '-', '-', '-', 'skipped: not on PATH']);
    const ratioHeads = RATIO_NAMES.map((n) => RATIOS[n].join('/'));
    log(table(['generator', 'c', ...ratioHeads, 'bare req/s', 'valid'], rows));

    const results = {
      date: start.toISOString(),
      durationMs: Date.now() - start.getTime(),
      node: process.version,
      machine: `${process.platform} ${process.arch}, ${cpus().length} x ${cpus()[0]?.model ?? '?'}`,
      nodeFlags,
      options: opts,
      specifiedReferenceToBare: SPECIFIED_REFERENCE_RATIO,
      generatorsRun: generators.map((g) => g.name),
      wrk: wrk?.path ?? 'skipped: not on PATH',
      blocks,
      valid: blocks.every((b) => b.valid),
    };
    await mkdir(dirname(opts.jsonPath), { recursive: true });
    await writeFile(opts.jsonPath, `${JSON.stringify(results, null, 2)}\n`);
    log(`results in ${opts.jsonPath}`);
    return 0;
  } finally {
    for (const server of started) await server.close();
    await fleet?.stop();
  }
}

const watchdog = setTimeout(() => {
  process.stderr.write(`calibrate: still running after ${WATCHDOG_MS} ms; giving up\n`);
  // The fleet exits when its IPC channel closes with this process; a server may be wedged.
  for (const { pid } of started) {
    try {
      if (pid !== undefined) process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  process.exit(1);
}, WATCHDOG_MS);
watchdog.unref();

// Keep-alive sockets of Kubernetes clients may linger once main is done, so exit explicitly.
main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(
      `calibrate failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exit(1);
  },
);
