/**
 * The demo's commands: `demo` (or `npm start`) runs the embedded demo; `deploy`, `status`,
 * `approve` and `promote` talk to a running one from another terminal. Every command answers
 * `--help`; a mistake prints the usage and exits 2, a failure one line and exits 1.
 */
import type { Env } from 'promotion-gateway';
import { helped, parse, portOf, runCommand, UsageError } from './args.js';
import { approve, deploy, promote, status, type Target } from './client.js';
import { runDemo } from './run.js';
import { stateDir } from './state.js';

const USAGE = `promotion-gateway demo: the gateway on a simulated fleet, with a Flux stand-in.

Usage:
  demo [--port 8080] [--log pretty|json] [--no-banner] [--no-auto-rollout]
  demo deploy --env ENV --version X [--fail] [--port 8080]
  demo status [--json] [--port 8080]
  demo approve --env ENV --revision X [--reject] [--port 8080]
  demo promote --env ENV --revision X [--port 8080]
  demo COMMAND --help

From the repository: npm start, then npm run demo -- deploy --env dev --version 6.6.0
`;

const COMMAND_USAGE: Readonly<Record<string, string>> = {
  run: `Usage: demo [--port 8080] [--log pretty|json] [--no-banner] [--no-auto-rollout]

Starts a simulated fleet (management, dev, staging, prod) and the gateway on 127.0.0.1:PORT,
with a Flux stand-in that rolls out what the gateway promotes; runs until Ctrl-C. Logs are
readable lines on a terminal, JSON otherwise (--log chooses).
`,
  deploy: `Usage: demo deploy --env ENV --version X [--fail] [--port 8080]

Plays Flux: rolls ENV's HelmRelease to X (with --fail, the upgrade fails: Ready=False) and
sends its signed event to the demo's gateway.
`,
  status: `Usage: demo status [--json] [--port 8080]

The gateway's verified view of the demo pipeline: what each environment runs and why it
waits, as a table (--json: the API's answer as it is).
`,
  approve: `Usage: demo approve --env ENV --revision X [--reject] [--port 8080]

Signs an approval (or rejection) of X for ENV with the demo approver's key and sends it.
`,
  promote: `Usage: demo promote --env ENV --revision X [--port 8080]

Asks for the promotion of X to ENV as the demo CI job, with a token from the demo's issuer.
`,
};

function target(port: string | undefined): Target {
  const number = portOf(port);
  return { port: number, stateDir: stateDir(number) };
}

function required(value: string | undefined, flag: string): string {
  if (value === undefined || value === '') throw new UsageError(`${flag} is required`);
  return value;
}

const PORT = { port: { type: 'string' } } as const;

async function command(name: string, args: string[], io: DemoIo): Promise<number> {
  const { out } = io;
  const usage = COMMAND_USAGE[name] ?? USAGE;
  switch (name) {
    case 'deploy': {
      const v = parse(args, {
        ...PORT,
        env: { type: 'string' },
        version: { type: 'string' },
        fail: { type: 'boolean' },
      });
      if (helped(v, usage, out)) return 0;
      const spec = {
        env: v.env ?? 'dev',
        version: required(v.version, '--version'),
        fail: v.fail === true,
      };
      return deploy(target(v.port), spec, out);
    }
    case 'status': {
      const v = parse(args, { ...PORT, json: { type: 'boolean' } });
      if (helped(v, usage, out)) return 0;
      return status(target(v.port), v.json === true, out);
    }
    case 'approve': {
      const v = parse(args, {
        ...PORT,
        env: { type: 'string' },
        revision: { type: 'string' },
        reject: { type: 'boolean' },
      });
      if (helped(v, usage, out)) return 0;
      const spec = {
        env: required(v.env, '--env'),
        revision: required(v.revision, '--revision'),
        reject: v.reject === true,
      };
      return approve(target(v.port), spec, out);
    }
    case 'promote': {
      const v = parse(args, { ...PORT, env: { type: 'string' }, revision: { type: 'string' } });
      if (helped(v, usage, out)) return 0;
      return promote(
        target(v.port),
        { env: required(v.env, '--env'), revision: required(v.revision, '--revision') },
        out,
      );
    }
    default:
      return run(args, io);
  }
}

async function run(args: string[], io: DemoIo): Promise<number> {
  const v = parse(args, {
    ...PORT,
    log: { type: 'string' },
    'no-banner': { type: 'boolean' },
    'no-auto-rollout': { type: 'boolean' },
  });
  if (helped(v, COMMAND_USAGE.run ?? USAGE, io.out)) return 0;
  if (v.log !== undefined && v.log !== 'pretty' && v.log !== 'json')
    throw new UsageError('--log must be pretty or json');
  const where = target(v.port);
  return runDemo(
    {
      ...where,
      banner: v['no-banner'] !== true,
      autoRollout: v['no-auto-rollout'] !== true,
      log: v.log ?? (io.tty ? 'pretty' : 'json'),
      ...(io.until === undefined ? {} : { until: io.until }),
    },
    io.env,
    io.out,
  );
}

const COMMANDS = new Set(['deploy', 'status', 'approve', 'promote']);

/** What the commands read and write; the process's own in cli.ts, fakes in tests. */
export interface DemoIo {
  out: NodeJS.WritableStream;
  err: NodeJS.WritableStream;
  env: Env;
  /** Whether `out` is a terminal (readable logs by default). */
  tty: boolean;
  /** Ends a running demo (default: SIGINT or SIGTERM). */
  until?: Promise<unknown>;
}

/** Runs the command `argv` names; resolves to its exit status. */
export async function main(argv: string[], io: DemoIo): Promise<number> {
  const [first, ...rest] = argv;
  if (first === 'help' || ((first === '--help' || first === '-h') && rest.length === 0)) {
    io.out.write(USAGE);
    return 0;
  }
  const name = first !== undefined && COMMANDS.has(first) ? first : 'run';
  const args = name === 'run' ? argv : rest;
  if (name === 'run' && first !== undefined && !first.startsWith('-'))
    return runCommand(USAGE, io.err, () =>
      Promise.reject(new UsageError(`unknown command: ${first}`)),
    );
  return runCommand(COMMAND_USAGE[name] ?? USAGE, io.err, () => command(name, args, io));
}
