#!/usr/bin/env node
/**
 * The process entry point: parses the command line and runs one command. Everything else is
 * built by functions that take their inputs explicitly; only this file and src/config read the
 * environment.
 */
import { runDemo, runDemoDeploy, runDemoStatus } from './demo/cli.js';
import { runServe } from './serve.js';
import { runSim } from './sim/cli.js';

const usage = `promotion-gateway: promotes applications through Flux environments from verified state.

Usage:
  promotion-gateway serve --config FILE [--kubeconfig PATH] [--context NAME]
  promotion-gateway demo [--port 8080] [--state FILE]
  promotion-gateway demo deploy --env ENV --version X [--state FILE]
  promotion-gateway demo status [--state FILE]
  promotion-gateway sim [--clusters a,b,c] [--port N] [--admin-port N] [--kubeconfig PATH]
  promotion-gateway --help | --version
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return runServe(rest, process.env, process.stdout);
    case 'demo':
      if (rest[0] === 'deploy') return runDemoDeploy(rest.slice(1), process.env, process.stdout);
      if (rest[0] === 'status') return runDemoStatus(rest.slice(1), process.stdout);
      return runDemo(rest, process.env, process.stdout);
    case 'sim':
      await runSim(rest, process.stdout);
      return 0;
    case '--version':
    case 'version':
      process.stdout.write(`${await packageVersion()}\n`);
      return 0;
    case undefined:
    case '--help':
    case '-h':
    case 'help':
      process.stdout.write(usage);
      return command === undefined ? 2 : 0;
    default:
      process.stderr.write(`unknown command: ${command}\n\n${usage}`);
      return 2;
  }
}

async function packageVersion(): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  const { packagePath } = await import('./paths.js');
  const pkg = JSON.parse(await readFile(packagePath('package.json'), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
