/**
 * How long the door fuzzers run: a fixed number of runs per property in CI (so the whole set
 * stays well under a minute on two shared cores), longer on demand. FUZZ_RUNS sets the runs of
 * every property, FUZZ_SECONDS runs each property for that long instead, FUZZ_SEED (and
 * FUZZ_PATH) replays a failure; a failure names the seed and path that reproduce it.
 */
import fc from 'fast-check';

/** What one property run did, for the report line and the tests' own bounds. */
export interface FuzzReport {
  name: string;
  runs: number;
  seed: number;
  ms: number;
}

function envNumber(name: string): number | undefined {
  const text = process.env[name];
  if (text === undefined || text.trim() === '') return undefined;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
}

/** The fast-check parameters for a property whose CI budget is `defaultRuns` runs. */
export function fuzzParameters(defaultRuns: number): fc.Parameters<unknown> {
  const seconds = envNumber('FUZZ_SECONDS');
  const seed = envNumber('FUZZ_SEED') ?? Math.floor(Math.random() * 0x7fffffff);
  const path = process.env.FUZZ_PATH;
  const runs = seconds === undefined ? (envNumber('FUZZ_RUNS') ?? defaultRuns) : 1_000_000_000;
  return {
    numRuns: runs,
    seed,
    ...(path === undefined ? {} : { path }),
    // Running out of time ends a long run as a pass: only a counterexample fails it.
    ...(seconds === undefined ? {} : { plugins: [fc.interruptAfterTimeLimit(seconds * 1000)] }),
  };
}

/**
 * Runs `property` under the fuzz budget and throws, with the replay command, when it fails.
 * fast-check shrinks a counterexample first, so the report shows a small failing request.
 */
export async function runFuzz<T>(
  name: string,
  property: fc.IAsyncPropertyWithHooks<T>,
  defaultRuns: number,
): Promise<FuzzReport> {
  const parameters = fuzzParameters(defaultRuns) as fc.Parameters<T>;
  const started = performance.now();
  const details = await fc.check(property, parameters);
  const ms = Math.round(performance.now() - started);
  if (details.failed) {
    const replay = `FUZZ_SEED=${String(details.seed)} FUZZ_PATH=${details.counterexamplePath ?? ''}`;
    const cause =
      details.errorInstance instanceof Error
        ? details.errorInstance.message
        : String(details.errorInstance);
    const report = fc.defaultReportMessage(details) ?? '';
    throw new Error(`fuzz ${name} failed; replay with ${replay}\n${cause}\n${report}`);
  }
  const report = { name, runs: details.numRuns, seed: details.seed, ms };
  if (process.env.FUZZ_REPORT !== undefined)
    process.stdout.write(
      `fuzz ${name}: ${String(report.runs)} runs in ${String(ms)} ms, seed ${String(report.seed)}\n`,
    );
  return report;
}

/** A fuzz test's own timeout: the project's default in CI, an hour when run longer on purpose. */
export function fuzzTimeoutMs(): number {
  return process.env.FUZZ_RUNS === undefined && process.env.FUZZ_SECONDS === undefined
    ? 30_000
    : 3_600_000;
}
