/**
 * The process side of a simulator's command: a command-line mistake prints the usage and exits
 * 2, a failure while running (a port in use) exits 1, and the simulator runs until Ctrl-C.
 */

/** A mistake on the command line (as opposed to a failure while running). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** True for a command-line mistake: a UsageError, or one of Node's parseArgs errors. */
export function isUsageError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return (
    err instanceof UsageError || (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'))
  );
}

/** `value` as a TCP port (0: ephemeral), undefined when absent; a UsageError naming `flag`. */
export function portOption(value: string, flag: string): number;
export function portOption(value: string | undefined, flag: string): number | undefined;
export function portOption(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new UsageError(`${flag} must be a port number, got ${value}`);
  return n;
}

/** Resolves on the first SIGINT or SIGTERM, or when `signal` aborts (tests, embedding). */
export function waitForStop(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((done) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      signal?.removeEventListener('abort', stop);
      done();
    };
    if (signal?.aborted === true) {
      done();
      return;
    }
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    signal?.addEventListener('abort', stop);
  });
}

/** A simulator's command: its name (which prefixes its messages), usage and body. */
export interface SimCommand {
  name: string;
  usage: string;
  /** Runs until stopped; throws a usage error (see isUsageError) on bad arguments. */
  run(argv: string[], out: NodeJS.WritableStream): Promise<void>;
}

async function exitStatus(command: SimCommand, argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(command.usage);
    return 0;
  }
  try {
    await command.run(argv, process.stdout);
    return 0;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (!isUsageError(err)) {
      process.stderr.write(`${command.name}: ${message}\n`);
      return 1;
    }
    process.stderr.write(`${command.name}: ${message}\n\n${command.usage}`);
    return 2;
  }
}

/** Runs `command` as this process on `argv` and sets the process's exit code when it ends. */
export function runSimCommand(command: SimCommand, argv = process.argv.slice(2)): void {
  exitStatus(command, argv).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(
        `${command.name}: ${err instanceof Error ? err.message : String(err)}\n`,
      );
      process.exitCode = 1;
    },
  );
}
