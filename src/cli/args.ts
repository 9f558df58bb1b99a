/**
 * Small helpers shared by the command-line tools: parse options strictly, answer `--help`,
 * and turn a command-line mistake into usage text and exit status 2.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** A command-line mistake: the command prints it with its usage and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** The parsed values of `O`'s options: booleans for boolean flags, strings otherwise. */
export type CommandValues<O extends Options> = {
  [K in keyof O]?: O[K] extends { type: 'boolean' } ? boolean : string;
} & { help?: boolean };

/**
 * `args` parsed against `options` (plus `--help`); parseArgs' own errors become UsageErrors.
 * Resolves `help: true` when asked for help.
 */
export function parseCommand<O extends Options>(args: string[], options: O): CommandValues<O> {
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

/** The value of a required option, or a UsageError naming it. */
export function required(value: string | undefined, flag: string): string {
  if (value === undefined || value === '') throw new UsageError(`${flag} is required`);
  return value;
}

/**
 * Runs `command`, printing `usage` for `--help` (exit 0) and for a UsageError (exit 2); any
 * other error is reported in one line (exit 1).
 */
export async function runCommand(
  out: NodeJS.WritableStream,
  usage: string,
  command: () => Promise<number>,
): Promise<number> {
  try {
    return await command();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof UsageError) {
      out.write(`${message}\n\n${usage}`);
      return 2;
    }
    out.write(`error: ${message}\n`);
    return 1;
  }
}
