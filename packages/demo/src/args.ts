/**
 * The demo's command conventions, on the gateway's strict option parsing: `--help` on every
 * command, a mistake turned into the command's usage and exit status 2, a failure into one line
 * and exit status 1.
 */
import {
  isSemVer2,
  parseOrHelp,
  quote,
  required,
  runCommand,
  UsageError,
  type CommandOptions,
  type CommandValues,
  type Env,
} from 'promotion-gateway';

/** A failure a person can act on (no demo running, say): printed alone, exit status 1. */
export class DemoError extends Error {
  override readonly name = 'DemoError';
}

/** A port number from `--port` (or the option `flag` names), 8080 when absent. */
export function portOf(value: string | undefined, flag = '--port'): number {
  const port = Number(value ?? '8080');
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new UsageError(`${flag} must be a TCP port (1-65535), not ${value ?? ''}`);
  return port;
}

/**
 * The chart version `--version` names, checked before anything is rolled out: the gateway only
 * verifies SemVer 2 chart versions (as Helm documents them), so anything else would leave the
 * environment Unknown rather than show a promotion.
 */
export function chartVersionOf(value: string | undefined): string {
  const version = required(value, '--version');
  if (!isSemVer2(version)) {
    throw new UsageError(
      `--version must be a SemVer 2 chart version such as 6.6.0 or 6.7.0-rc.1 (no leading v), not ${quote(version)}`,
    );
  }
  return version;
}

/** Every line the demo writes about a failure starts `demo: `. */
const DEMO_LABELS = { mistake: 'demo: ', failure: 'demo: ' };

/** Runs a command: its usage on a UsageError (exit 2), one line on any other failure (exit 1). */
export function runDemoCommand(
  usage: string,
  err: NodeJS.WritableStream,
  command: () => Promise<number>,
): Promise<number> {
  return runCommand(err, usage, command, DEMO_LABELS);
}

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

/** A demo command: its usage, and what it does with its arguments. */
export interface DemoCommand {
  usage: string;
  run(args: string[], io: DemoIo): Promise<number>;
}

/** The command that parses `options` (writing `usage` for `--help`), then runs `run`. */
export function demoCommand<O extends CommandOptions>(
  usage: string,
  options: O,
  run: (values: CommandValues<O>, io: DemoIo) => Promise<number>,
): DemoCommand {
  return {
    usage,
    run: (args, io) => {
      const values = parseOrHelp(args, options, usage, io.out);
      return values === undefined ? Promise.resolve(0) : run(values, io);
    },
  };
}
