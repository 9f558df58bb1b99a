/**
 * `npm run bench:scale [-- --sizes 100x5,1000x20 --layouts env,app --paces normal,one-core]
 * [--quick] [--shards S] [--unconstrained]`: the scale section alone, each size and layout at
 * every pace (scale-pace.ts; quick mode: normal only). Prints the tables, the paces side by side
 * and the goals; writes bench/results/scale.json. With --shards, each size is served by S
 * gateways, one per shard (scale-shards.ts), and bench/results/scale-sharded.json is written.
 * Each gateway runs in a memory cgroup with its pod's limit (pod-memory.ts) where the machine
 * allows one; --unconstrained runs them outside any.
 */
import { applyProductionEnvironment } from './node-flags.js';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot } from './paths.js';
import { barsTable } from './report.js';
import { measureScale, scaleSizes, type ScaleResult } from './scale.js';
import { paceOf, pacesFrom, paceTable } from './scale-pace.js';
import { peakMemoryTable, scaleGoals, scaleTable } from './scale-report.js';
import { measureShardedScale, type ShardedResult } from './scale-shards.js';
import { shardedGoals, shardedTable, shardTable } from './scale-shards-report.js';
import type { Layout, ScaleSpec } from './scale-types.js';

function specs(): ScaleSpec[] {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string' },
      layouts: { type: 'string' },
      paces: { type: 'string' },
      quick: { type: 'boolean' },
      shards: { type: 'string' },
      unconstrained: { type: 'boolean' },
    },
    strict: true,
  });
  const shards = values.shards === undefined ? undefined : Number(values.shards);
  if (shards !== undefined && !(Number.isInteger(shards) && shards >= 1))
    throw new Error(`--shards takes a positive integer: ${String(values.shards)}`);
  const extra = {
    ...(shards === undefined ? {} : { shards }),
    ...(values.unconstrained === true ? { unconstrained: true } : {}),
  };
  const quick = values.quick === true || process.env.BENCH_QUICK === '1';
  const paces = pacesFrom(values.paces ?? (quick ? 'normal' : undefined));
  const layouts = (values.layouts ?? 'env,app').split(',') as Layout[];
  const sizes =
    values.sizes === undefined
      ? scaleSizes(quick)
      : values.sizes.split(',').flatMap((size) => {
          const [n, c] = size.split('x').map(Number);
          return layouts.map((layout) => ({ pipelines: n ?? 100, clusters: c ?? 5, layout }));
        });
  return sizes
    .filter((spec) => layouts.includes(spec.layout))
    .flatMap((spec) => paces.map((pace) => ({ ...spec, pace, ...extra })));
}

/** Runs every spec in turn and prints as it goes. */
export async function runScale(
  list: readonly ScaleSpec[],
  log: (line: string) => void,
): Promise<ScaleResult[]> {
  const results: ScaleResult[] = [];
  for (const spec of list) {
    const started = Date.now();
    const result = await measureScale(spec);
    results.push(result);
    const round = result.waveConfirmation;
    log(
      `  scale ${String(spec.pipelines)} x ${String(spec.clusters)} (${spec.layout}, ${paceOf(spec.pace).label}): measured in ${((Date.now() - started) / 1000).toFixed(0)} s` +
        (round === undefined
          ? ''
          : `; wave round: ${String(round.due)} due, ${String(round.reread)} targets re-read in ${(round.durationMs / 1000).toFixed(2)} s`) +
        (result.gatewayCpus === undefined ? '' : `; gateway CPUs: ${result.gatewayCpus}`),
    );
  }
  return results;
}

/** Runs every sharded spec in turn; prints each shard's line as it goes. */
export async function runSharded(
  list: readonly ScaleSpec[],
  log: (line: string) => void,
): Promise<ShardedResult[]> {
  const results: ShardedResult[] = [];
  for (const spec of list) {
    const started = Date.now();
    const result = await measureShardedScale(spec);
    results.push(result);
    log(
      `  scale ${String(spec.pipelines)} x ${String(spec.clusters)} (${spec.layout}) in ${String(spec.shards)} shards: measured in ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
    log(shardTable(result));
  }
  return results;
}

async function mainSharded(list: readonly ScaleSpec[], log: (line: string) => void) {
  const results = await runSharded(list, log);
  log('');
  log(shardedTable(results));
  log('');
  log(barsTable(shardedGoals(results)));
  const dir = join(repoRoot(), 'bench', 'results');
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, 'scale-sharded.json'),
    `${JSON.stringify({ node: process.version, results }, null, 2)}\n`,
  );
}

async function main(): Promise<void> {
  applyProductionEnvironment();
  const log = (line: string) => process.stdout.write(`${line}\n`);
  log(`promotion-gateway scale bench: node ${process.version}`);
  const list = specs();
  if (list.some((spec) => spec.shards !== undefined)) {
    await mainSharded(list, log);
    return;
  }
  const results = await runScale(list, log);
  log('');
  log(scaleTable(results));
  log('');
  log(peakMemoryTable(results));
  log('');
  log('Reads per promotion and wave time at each pace (the wave must end before the next pass):');
  log(paceTable(results));
  log('');
  log(barsTable(scaleGoals(results)));
  const dir = join(repoRoot(), 'bench', 'results');
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, 'scale.json'),
    `${JSON.stringify({ node: process.version, results }, null, 2)}\n`,
  );
}

if (process.argv[1]?.endsWith('scale-run.js') === true) {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(
        `bench scale failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
      );
      process.exit(2);
    },
  );
}
