/**
 * Small helpers shared by the command-line tools (and the demo's): parse options strictly,
 * answer `--help`, and turn a command-line mistake into usage text and exit status 2.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { redactUrls } from '../text/redact-url.js';

/** A command-line mistake: the command prints it with its usage and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The options a command takes, as node:util's parseArgs declares them. */
export type CommandOptions = NonNullable<ParseArgsConfig['options']>;

/**
 * The parsed values of `O`'s options: booleans for boolean flags, lists for repeated options,
 * strings otherwise.
 */
export type CommandValues<O extends CommandOptions> = {
  [K in keyof O]?: O[K] extends { type: 'boolean' }
    ? boolean
    : O[K] extends { multiple: true }
      ? string[]
      : string;
} & { help?: boolean };

/**
 * `args` parsed against `options` (plus `--help`); parseArgs' own errors become UsageErrors.
 * Resolves `help: true` when asked for help.
 */
export function parseCommand<O extends CommandOptions>(
  args: string[],
  options: O,
): CommandValues<O> {
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

/** `args` parsed as parseCommand does, or undefined once `usage` is written for `--help`. */
export function parseOrHelp<O extends CommandOptions>(
  args: string[],
  options: O,
  usage: string,
  out: NodeJS.WritableStream,
): CommandValues<O> | undefined {
  const values = parseCommand(args, options);
  if (values.help !== true) return values;
  out.write(usage);
  return undefined;
}

/** The value of a required option, or a UsageError naming it. */
export function required(value: string | undefined, flag: string): string {
  if (value === undefined || value === '') throw new UsageError(`${flag} is required`);
  return value;
}

/** Options named `names` that each take a value (`--name VALUE`). */
export function valueOptions<N extends string>(...names: N[]): Record<N, { type: 'string' }> {
  return Object.fromEntries(names.map((name) => [name, { type: 'string' }])) as Record<
    N,
    { type: 'string' }
  >;
}

/** Options named `names` that take a value and may be given again (`--name A --name B`). */
export function repeatedOptions<N extends string>(
  ...names: N[]
): Record<N, { type: 'string'; multiple: true }> {
  return Object.fromEntries(
    names.map((name) => [name, { type: 'string', multiple: true }]),
  ) as Record<N, { type: 'string'; multiple: true }>;
}

/** Options named `names` that are flags (`--name`). */
export function flagOptions<N extends string>(...names: N[]): Record<N, { type: 'boolean' }> {
  return Object.fromEntries(names.map((name) => [name, { type: 'boolean' }])) as Record<
    N,
    { type: 'boolean' }
  >;
}

/** What a command reads (the environment as given, never process.env) and writes to. */
export interface CommandIo {
  env: Readonly<Record<string, string | undefined>>;
  out: NodeJS.WritableStream;
}

/** A command, run on its arguments; resolves to the exit status. */
export type CommandRunner = (args: string[], io: CommandIo) => Promise<number>;

/** What makes a command: its usage, its options, and what it does with their values. */
export interface CommandSpec<O extends CommandOptions> {
  usage: string;
  options: O;
  run(values: CommandValues<O>, io: CommandIo): Promise<number>;
}

/**
 * The command `spec` describes: its arguments parsed against its options, `--help` answered with
 * its usage (exit 0), a mistake with the usage (exit 2), any other error in one line (exit 1).
 */
export function command<O extends CommandOptions>(spec: CommandSpec<O>): CommandRunner {
  return (args, io) =>
    runCommand(io.out, spec.usage, () => {
      const values = parseOrHelp(args, spec.options, spec.usage, io.out);
      return values === undefined ? Promise.resolve(0) : spec.run(values, io);
    });
}

/** What starts the line a command writes for a mistake and for any other failure. */
export interface FailureLabels {
  mistake: string;
  failure: string;
}

/** The gateway's labels: a mistake is its message alone, any other failure `error: ...`. */
const GATEWAY_LABELS: FailureLabels = { mistake: '', failure: 'error: ' };

/**
 * Runs `command`: a UsageError is written with `usage` (exit 2), any other error in one line
 * (exit 1), each after its label and without the credentials of any URL it quotes (fetch's
 * own errors quote the URL they were given, `--send https://user:password@...` included).
 */
export async function runCommand(
  out: NodeJS.WritableStream,
  usage: string,
  command: () => Promise<number>,
  labels: FailureLabels = GATEWAY_LABELS,
): Promise<number> {
  try {
    return await command();
  } catch (error) {
    const message = redactUrls(error instanceof Error ? error.message : String(error));
    if (error instanceof UsageError) {
      out.write(`${labels.mistake}${message}\n\n${usage}`);
      return 2;
    }
    out.write(`${labels.failure}${message}\n`);
    return 1;
  }
}

/**
 * The command `promotion-gateway <group> <subcommand> ...`: runs the subcommand `args` names,
 * else writes `usage` (exit 0 for --help, 2 for none or an unknown one, named).
 */
export function commandGroup(
  group: string,
  usage: string,
  subcommands: ReadonlyMap<string, CommandRunner>,
): (
  args: string[],
  env: Readonly<Record<string, string | undefined>>,
  out: NodeJS.WritableStream,
) => Promise<number> {
  return (args, env, out) => {
    const [name, ...rest] = args;
    const subcommand = name === undefined ? undefined : subcommands.get(name);
    if (subcommand !== undefined) return subcommand(rest, { env, out });
    if (name === undefined || name === '--help' || name === '-h') {
      out.write(usage);
      return Promise.resolve(name === undefined ? 2 : 0);
    }
    out.write(`unknown ${group} command: ${name}\n\n${usage}`);
    return Promise.resolve(2);
  };
}
