/**
 * The kubectl plugin's runner and completion: commands, subcommands and flags completed in
 * Cobra's format from the command table, file names left to the shell after a file flag, the
 * completion executable told apart by the name it was started as, and mistakes exiting 2.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  completionOutput,
  completions,
  DIRECTIVE_DEFAULT,
  DIRECTIVE_NO_FILES,
} from '../../../src/cli/completion.js';
import { runPlugin } from '../../../src/cli/kubectl-plugin.js';
import { OPERATOR_COMMANDS } from '../../../src/cli/operator-commands.js';

/** Runs the plugin as `invokedAs` on `args`: its exit status, stdout and stderr. */
async function plugin(args: string[], invokedAs = '/usr/local/bin/kubectl-promotion') {
  const out = new PassThrough();
  const err = new PassThrough();
  let stdout = '';
  let stderr = '';
  out.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  err.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const code = await runPlugin(args, { env: {}, out, err }, invokedAs);
  return { code, stdout, stderr };
}

describe('completions', () => {
  it.each([
    [[''], [...OPERATOR_COMMANDS.keys(), 'completion', 'version', 'help'], DIRECTIVE_NO_FILES],
    [['st'], ['status'], DIRECTIVE_NO_FILES],
    [['approvals', ''], ['keygen', 'sign', 'verify'], DIRECTIVE_NO_FILES],
    [['halts', 'l'], ['lift'], DIRECTIVE_NO_FILES],
    [['completion', ''], ['bash', 'zsh'], DIRECTIVE_NO_FILES],
    [['status', '--j'], ['--json'], DIRECTIVE_NO_FILES],
    [['status', '--kubeconfig', ''], [], DIRECTIVE_DEFAULT],
    [['approvals', 'sign', '--key', 'al'], [], DIRECTIVE_DEFAULT],
    [['status', 'team-a/'], [], DIRECTIVE_NO_FILES],
    [['nope', ''], [], DIRECTIVE_NO_FILES],
  ])('%j -> %j', (words, candidates, directive) => {
    expect(completions(words)).toEqual({ candidates, directive });
  });

  it('answers in Cobra’s format: one candidate a line, then the directive', () => {
    expect(completionOutput(['halts', ''])).toBe('sign\nlift\n:4\n');
  });
});

describe('runPlugin', () => {
  it('answers completion when started as kubectl_complete-promotion, or with __complete', async () => {
    const asCompleter = await plugin(['di'], '/opt/bin/kubectl_complete-promotion');
    expect(asCompleter).toEqual({ code: 0, stdout: 'diff\n:4\n', stderr: '' });
    const hidden = await plugin(['__complete', 'rollback', '--t']);
    expect(hidden.stdout).toBe('--to\n--ttl\n:4\n');
  });

  it('runs the operator’s commands, and exits 2 on a mistake with the usage', async () => {
    const help = await plugin(['status', '--help']);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(/^Usage: promotion-gateway status/);
    const none = await plugin([]);
    expect(none.code).toBe(2);
    expect(none.stdout).toContain('Usage: kubectl promotion COMMAND');
    const unknown = await plugin(['serve']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^unknown command: serve\n/);
    const script = await plugin(['completion', 'bash']);
    expect(script.stdout).toContain('complete -F _kubectl_promotion kubectl-promotion');
    expect((await plugin(['completion'])).code).toBe(2);
  });
});
