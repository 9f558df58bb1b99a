#!/usr/bin/env node
/**
 * The `forge-sim` command: a simulated GitHub or GitLab on loopback until Ctrl-C. A command-line
 * mistake prints the usage and exits 2; a failure while running (a port in use) exits 1.
 */
import { FORGE_USAGE, isForgeUsageError, runForge } from './run-forge.js';

async function main(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(FORGE_USAGE);
    return 0;
  }
  try {
    await runForge(argv, process.stdout);
    return 0;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (!isForgeUsageError(err)) {
      process.stderr.write(`forge-sim: ${message}\n`);
      return 1;
    }
    process.stderr.write(`forge-sim: ${message}\n\n${FORGE_USAGE}`);
    return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`forge-sim: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
