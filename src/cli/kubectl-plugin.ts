/**
 * The CLI as a kubectl plugin: `kubectl promotion <command>` runs `kubectl-promotion <command>`,
 * which runs the operator's commands (operator-commands.ts) with the environment kubectl passes
 * on (KUBECONFIG; --kubeconfig and --context given after the command), so they read the
 * Pipelines through the current kubeconfig context as kubectl does. Invoked as
 * `kubectl_complete-promotion` (or as `kubectl-promotion __complete`), it answers kubectl's
 * shell completion instead.
 */
import { basename } from 'node:path';
import { redactUrls } from '../text/redact-url.js';
import { completionOutput, completionScript, SHELLS } from './completion.js';
import { OPERATOR_COMMANDS, type OperatorIo } from './operator-commands.js';
import { packageVersion } from './package-version.js';

/** The name kubectl looks for on PATH to complete `kubectl promotion ...`. */
export const COMPLETION_EXECUTABLE = 'kubectl_complete-promotion';

/** `kubectl promotion help`. */
export function pluginUsage(): string {
  const rows = [...OPERATOR_COMMANDS].map(([name, c]) => `  ${name.padEnd(12)} ${c.summary}`);
  return `kubectl promotion: the promotion-gateway CLI as a kubectl plugin.

Usage: kubectl promotion COMMAND [ARGS] [--kubeconfig PATH] [--context NAME]

Commands (--help on each; the same as promotion-gateway COMMAND):
${rows.join('\n')}
  completion   a shell completion script: completion bash|zsh
  version      the plugin's version

The commands that read Pipelines use the current kubeconfig context, as kubectl does
($KUBECONFIG, else ~/.kube/config; --kubeconfig and --context after the command).
`;
}

/**
 * Runs the plugin on `args` (what follows `kubectl promotion`); `invokedAs` is the path the
 * process was started by. Resolves to the exit status (2 for a usage mistake).
 */
export async function runPlugin(
  args: string[],
  io: OperatorIo,
  invokedAs: string,
): Promise<number> {
  if (basename(invokedAs) === COMPLETION_EXECUTABLE) return complete(args, io);
  const [name, ...rest] = args;
  switch (name) {
    case '__complete':
      return complete(rest, io);
    case 'completion':
      return printScript(rest, io);
    case 'version':
    case '--version':
      io.out.write(`${await packageVersion()}\n`);
      return 0;
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      io.out.write(pluginUsage());
      return name === undefined ? 2 : 0;
  }
  const command = OPERATOR_COMMANDS.get(name);
  if (command !== undefined) return command.run(rest, io);
  io.err.write(`unknown command: ${redactUrls(name)}\n\n${pluginUsage()}`);
  return 2;
}

function complete(words: string[], io: OperatorIo): Promise<number> {
  io.out.write(completionOutput(words.length === 0 ? [''] : words));
  return Promise.resolve(0);
}

function printScript(args: string[], io: OperatorIo): Promise<number> {
  const [shell] = args;
  const known = SHELLS.find((s) => s === shell);
  if (known === undefined || args.length !== 1) {
    io.err.write(`Usage: kubectl promotion completion ${SHELLS.join('|')}\n`);
    return Promise.resolve(2);
  }
  io.out.write(completionScript(known));
  return Promise.resolve(0);
}
