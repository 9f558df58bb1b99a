/**
 * `npm run bench:idle [-- --quick] [--strict]`: part (f) alone, an idle fleet of 1,000
 * Pipelines on two replicas. Prints its figures and bar; writes bench/results/idle.json.
 */
import { applyProductionEnvironment } from './node-flags.js';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { idleSpec, measureIdle } from './idle.js';
import { idleBar, idleLines } from './idle-report.js';
import { repoRoot } from './paths.js';
import { barsTable } from './report.js';

/** The part ends by itself even if something hangs. */
const WATCHDOG_MS = 5 * 60_000;

async function main(): Promise<number> {
  applyProductionEnvironment();
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      strict: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const quick = values.quick || process.env.BENCH_QUICK === '1';
  const log = (line: string) => process.stdout.write(`${line}\n`);
  log(`promotion-gateway idle bench (${quick ? 'quick' : 'full'}): node ${process.version}`);
  const result = await measureIdle(idleSpec(quick));
  const bar = idleBar(result);
  for (const line of idleLines(result)) log(line);
  log('');
  log(barsTable([bar]));
  const dir = join(repoRoot(), 'bench', 'results');
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, 'idle.json'),
    `${JSON.stringify({ node: process.version, result, bar }, null, 2)}\n`,
  );
  return !bar.pass && values.strict ? 1 : 0;
}

const watchdog = setTimeout(() => {
  process.stderr.write(`bench idle: still running after ${String(WATCHDOG_MS)} ms; giving up\n`);
  process.exit(2);
}, WATCHDOG_MS);
watchdog.unref();

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(
      `bench idle failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exit(2);
  },
);
