/**
 * Strict option parsing for the demo's commands: `--help` on every command, and a mistake
 * turned into the command's usage and exit status 2.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** A command-line mistake: printed with the command's usage, exit status 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** A failure a person can act on (no demo running, say): printed alone, exit status 1. */
export class DemoError extends Error {
  override readonly name = 'DemoError';
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** Parsed values: booleans for boolean options, strings otherwise. */
export type Values<O extends Options> = {
  [K in keyof O]?: O[K] extends { type: 'boolean' } ? boolean : string;
} & { help?: boolean };

/** `args` parsed strictly against `options` plus `--help`/`-h`. */
export function parse<O extends Options>(args: string[], options: O): Values<O> {
  try {
    return parseArgs({
      args,
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** A port number from `--port`, 8080 when absent. */
export function portOf(value: string | undefined): number {
  const port = Number(value ?? '8080');
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new UsageError(`--port must be a TCP port (1-65535), not ${value ?? ''}`);
  return port;
}

/** Runs a command: usage on --help (0) and on a UsageError (2), one line for any other failure (1). */
export async function runCommand(
  usage: string,
  err: NodeJS.WritableStream,
  command: () => Promise<number>,
): Promise<number> {
  try {
    return await command();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof UsageError) {
      err.write(`demo: ${message}\n\n${usage}`);
      return 2;
    }
    err.write(`demo: ${message}\n`);
    return 1;
  }
}

/** True when `values` asks for help; writes `usage` then. */
export function helped(values: { help?: boolean }, usage: string, out: NodeJS.WritableStream) {
  if (values.help !== true) return false;
  out.write(usage);
  return true;
}
