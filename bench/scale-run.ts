/**
 * `npm run bench:scale [-- --sizes 100x5,1000x20 --layouts env,app] [--quick]`: the scale
 * section alone. Prints the table and the goals; writes bench/results/scale.json.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot } from './paths.js';
import { barsTable } from './report.js';
import { measureScale, scaleSizes, type ScaleResult } from './scale.js';
import { peakMemoryTable, scaleGoals, scaleTable } from './scale-report.js';
import type { Layout, ScaleSpec } from './scale-types.js';

function specs(): ScaleSpec[] {
  const { values } = parseArgs({
    options: { sizes: { type: 'string' }, layouts: { type: 'string' }, quick: { type: 'boolean' } },
    strict: true,
  });
  if (values.sizes === undefined)
    return scaleSizes(values.quick === true || process.env.BENCH_QUICK === '1');
  const layouts = (values.layouts ?? 'env,app').split(',') as Layout[];
  return values.sizes.split(',').flatMap((size) => {
    const [n, c] = size.split('x').map(Number);
    return layouts.map((layout) => ({ pipelines: n ?? 100, clusters: c ?? 5, layout }));
  });
}

/** Runs every spec in turn and prints as it goes. */
export async function runScale(
  list: readonly ScaleSpec[],
  log: (line: string) => void,
): Promise<ScaleResult[]> {
  const results: ScaleResult[] = [];
  for (const spec of list) {
    const started = Date.now();
    results.push(await measureScale(spec));
    log(
      `  scale ${String(spec.pipelines)} x ${String(spec.clusters)} (${spec.layout}): measured in ${((Date.now() - started) / 1000).toFixed(0)} s`,
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
