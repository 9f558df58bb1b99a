#!/usr/bin/env node
/**
 * The `kube-sim` command: a simulated fleet on loopback until Ctrl-C. A command-line mistake
 * prints the usage and exits 2; a failure while running (a port in use) exits 1.
 */
import { isUsageError, runSim, SIM_USAGE } from './run-sim.js';

async function main(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(SIM_USAGE);
    return 0;
  }
  try {
    await runSim(argv, process.stdout);
    return 0;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (!isUsageError(err)) {
      process.stderr.write(`kube-sim: ${message}\n`);
      return 1;
    }
    process.stderr.write(`kube-sim: ${message}\n\n${SIM_USAGE}`);
    return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`kube-sim: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
