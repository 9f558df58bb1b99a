/**
 * `npm run bench:scale [-- --sizes 100x5,1000x20 --layouts env,app --paces normal,one-core]
 * [--quick]`: the scale section alone, each size and layout at every pace (scale-pace.ts; quick
 * mode: normal only). Prints the tables, the paces side by side and the goals; writes
 * bench/results/scale.json.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot } from './paths.js';
import { barsTable } from './report.js';
import { measureScale, scaleSizes, type ScaleResult } from './scale.js';
import { paceOf, pacesFrom, paceTable } from './scale-pace.js';
import { peakMemoryTable, scaleGoals, scaleTable } from './scale-report.js';
import type { Layout, ScaleSpec } from './scale-types.js';

function specs(): ScaleSpec[] {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string' },
      layouts: { type: 'string' },
      paces: { type: 'string' },
      quick: { type: 'boolean' },
    },
    strict: true,
  });
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
    .flatMap((spec) => paces.map((pace) => ({ ...spec, pace })));
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

async function main(): Promise<void> {
  const log = (line: string) => process.stdout.write(`${line}\n`);
  log(`promotion-gateway scale bench: node ${process.version}`);
  const results = await runScale(specs(), log);
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
