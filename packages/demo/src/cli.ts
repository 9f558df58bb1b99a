#!/usr/bin/env node
/**
 * The demo's process entry: `demo` (or `npm start`) runs the embedded demo; `deploy` and
 * `status` talk to a running one from another terminal.
 */
import { runDemo, runDemoDeploy, runDemoStatus } from './commands.js';

const usage = `promotion-gateway demo: the gateway on a simulated fleet, with a Flux stand-in.

Usage:
  demo [--port 8080] [--state FILE] [--no-banner] [--no-auto-rollout]
  demo deploy --env ENV --version X [--state FILE]
  demo status [--state FILE]
  demo --help

From the repository: npm start, then npm run demo -- deploy --env dev --version 6.6.0
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(usage);
    return 0;
  }
  if (command === 'deploy') return runDemoDeploy(rest, process.env, process.stdout);
  if (command === 'status') return runDemoStatus(rest, process.stdout);
  return runDemo(argv, process.env, process.stdout);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`demo: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
