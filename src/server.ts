#!/usr/bin/env node
/**
 * The process entry point: parses the command line and runs one command. Everything else is
 * built by functions that take their inputs explicitly; only this file and src/config read the
 * environment.
 */
import { OPERATOR_COMMANDS } from './cli/operator-commands.js';
import { packageVersion } from './cli/package-version.js';
import { redactUrls } from './text/redact-url.js';
import { runServe } from './cli/serve.js';

const usage = `promotion-gateway: promotes applications through Flux environments from verified state.

Usage:
  promotion-gateway serve --config FILE [--kubeconfig PATH] [--context NAME]
  promotion-gateway approvals keygen|sign|verify ...   (for approvers; --help on each)
  promotion-gateway halts sign|lift ...   (an approver's signed stop-the-line; --help on each)
  promotion-gateway rollback NAMESPACE/NAME ENV [--to REV] --reason TEXT ...   (a signed rollback; --help)
  promotion-gateway flux-config --address URL [-o DIR [--generate-keys]] ...   (--help)
  promotion-gateway status [NAMESPACE/PIPELINE] [-A] [--watch] [--json]   (the fleet, per environment)
  promotion-gateway what-if --policy FILE [NAMESPACE/PIPELINE] [-A] [--at TIME]   (a proposed policy; --help)
  promotion-gateway diff NAMESPACE/NAME ENV [--json]   (what a pending promotion would change; --help)
  promotion-gateway --help | --version

serve reads and validates the configuration (docs/configuration.md), connects to the
management cluster (--kubeconfig, the config's management.kubeconfig, or the in-cluster
service account) and serves until SIGINT/SIGTERM. A bad configuration exits with status 2.
`;

/** The oldest Node.js line supported: 20 is past its end of life, and 22 and 24 are tested. */
const MIN_NODE_MAJOR = 22;

async function main(argv: string[]): Promise<number> {
  const major = Number(process.versions.node.split('.')[0]);
  if (major < MIN_NODE_MAJOR) {
    process.stderr.write(
      `promotion-gateway needs Node.js ${String(MIN_NODE_MAJOR)} or later (this is ${process.version}, past its end of life)\n`,
    );
    return 1;
  }
  const [command, ...rest] = argv;
  const operator = command === undefined ? undefined : OPERATOR_COMMANDS.get(command);
  if (operator !== undefined) {
    return operator.run(rest, { env: process.env, out: process.stdout, err: process.stderr });
  }
  switch (command) {
    case 'serve':
      return runServe(rest, process.env, process.stdout);
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

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`${redactUrls(err instanceof Error ? err.message : String(err))}\n`);
    process.exitCode = 1;
  },
);
