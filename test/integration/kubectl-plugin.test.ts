/**
 * The CLI as a kubectl plugin, run by the real kubectl: a directory holding `kubectl-promotion`
 * and `kubectl_complete-promotion` (links to the plugin's bin, bundled from the sources as
 * `npm run build` bundles it) is on PATH; `kubectl promotion status` lists the Pipelines of
 * kube-sim through the current kubeconfig context (its namespace, or -A, or --context), `kubectl
 * plugin list` finds the plugin, kubectl's own completion completes `kubectl promotion ...`
 * through kubectl_complete-promotion, and the bash script of `completion bash` completes
 * `kubectl-promotion ...`.
 */
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { BUNDLE_OPTIONS } from '../../esbuild.config.js';
import { packagePath } from '../../src/paths.js';
import {
  createApp,
  launchGateway,
  startTestFleet,
  waitSteady,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';
import { tempDir } from '../support/temp-dirs.js';

const TEAM_A = 'plugin-team-a';
const TEAM_B = 'plugin-team-b';
/** Inside the package (the bundle finds its package.json and node_modules upwards), removed after. */
const OUT = packagePath('dist', `kubectl-plugin-test-${String(process.pid)}`);

let fleet: TestFleet;
let gw: RunningGateway;
let dir: string;
let bin: string;
let kubeconfig: string;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `file args...` with the plugin's directory and Node on PATH and the test's kubeconfig. */
function run(file: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      {
        encoding: 'utf8',
        env: {
          PATH: [bin, dirname(process.execPath), '/usr/bin', '/bin'].join(':'),
          HOME: dir,
          KUBECONFIG: kubeconfig,
          ...env,
        },
      },
      (err, stdout, stderr) => {
        resolve({ code: err === null ? 0 : Number(err.code), stdout, stderr });
      },
    );
  });
}

const kubectl = (...args: string[]) => run('/usr/bin/kubectl', args);

/** The rows of a status table that are about `ns`. */
const rowsOf = (text: string, ns: string) => text.split('\n').filter((l) => l.startsWith(ns));

beforeAll(async () => {
  dir = tempDir('kubectl-plugin-');
  await build({
    ...BUNDLE_OPTIONS,
    entryPoints: { 'kubectl-promotion': packagePath('src', 'kubectl-promotion.ts') },
    outdir: OUT,
    sourcemap: false,
    logLevel: 'silent',
  });
  const script = join(OUT, 'kubectl-promotion.js');
  chmodSync(script, 0o755);
  bin = join(dir, 'bin');
  mkdirSync(bin);
  symlinkSync(script, join(bin, 'kubectl-promotion'));
  symlinkSync(script, join(bin, 'kubectl_complete-promotion'));

  fleet = await startTestFleet();
  gw = await launchGateway(fleet);
  createApp(fleet, TEAM_A);
  createApp(fleet, TEAM_B, { prodPromotion: { manual: true } });
  await waitSteady(fleet, [gw], TEAM_A);
  await waitSteady(fleet, [gw], TEAM_B);
  // The admin's kubeconfig, its current context switched to one defaulting to team A's namespace.
  const config = parse(fleet.management.kubeconfig()) as {
    contexts: { name: string; context: Record<string, string> }[];
    'current-context': string;
  };
  const admin = config.contexts[0];
  if (admin === undefined) throw new Error('no context');
  config.contexts.push({ name: 'team-a', context: { ...admin.context, namespace: TEAM_A } });
  config['current-context'] = 'team-a';
  kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, stringify(config));
}, 60_000);
afterAll(async () => {
  await gw.close();
  await fleet.close();
  rmSync(OUT, { recursive: true, force: true });
});

describe('kubectl promotion', () => {
  it('lists the Pipelines of the current context’s namespace, of -A, and of --context', async () => {
    const current = await kubectl('promotion', 'status');
    expect(current.stderr).toBe('');
    expect(current.code).toBe(0);
    expect(rowsOf(current.stdout, TEAM_A)).toHaveLength(3);
    expect(rowsOf(current.stdout, TEAM_A)[0]).toMatch(/podinfo +dev +6\.5\.0 +1\/1 +up to date/);
    expect(rowsOf(current.stdout, TEAM_B)).toEqual([]);

    const all = await kubectl('promotion', 'status', '-A');
    expect(rowsOf(all.stdout, TEAM_A)).toHaveLength(3);
    expect(rowsOf(all.stdout, TEAM_B)).toHaveLength(3);

    // The admin context has no namespace: `default`, where there is none.
    const admin = await kubectl('promotion', 'status', '--context', 'management');
    expect(admin).toMatchObject({ code: 0, stdout: 'No Pipelines found.\n' });
    const named = await kubectl('promotion', 'status', `${TEAM_B}/podinfo`);
    expect(named.stdout).toContain(`Pipeline ${TEAM_B}/podinfo (HelmRelease podinfo)`);

    // --kubeconfig after the command, as kubectl's own flag reads.
    const other = await run(
      '/usr/bin/kubectl',
      ['promotion', 'status', '-A', '--kubeconfig', kubeconfig],
      {
        KUBECONFIG: join(dir, 'missing'),
      },
    );
    expect(rowsOf(other.stdout, TEAM_B)).toHaveLength(3);
  });

  it('is found by kubectl plugin list, and a mistake exits 2 with the usage', async () => {
    const list = await kubectl('plugin', 'list');
    expect(list.stdout).toContain(join(bin, 'kubectl-promotion'));
    const unknown = await kubectl('promotion', 'frobnicate');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command: frobnicate');
    const help = await kubectl('promotion', 'help');
    expect(help.stdout).toMatch(/^ {2}status +the fleet per environment/m);
  });

  it('completes through kubectl_complete-promotion in kubectl’s own completion', async () => {
    const commands = await kubectl('__complete', 'promotion', '');
    const lines = commands.stdout.trim().split('\n');
    expect(lines).toEqual(expect.arrayContaining(['status', 'diff', 'approvals', 'halts']));
    expect(lines.at(-1)).toBe(':4');
    const halts = await kubectl('__complete', 'promotion', 'halts', '');
    expect(halts.stdout.trim().split('\n')).toEqual(['sign', 'lift', ':4']);
    const flags = await kubectl('__complete', 'promotion', 'status', '--w');
    expect(flags.stdout.trim().split('\n')).toEqual(['--watch', ':4']);
  });

  it('prints completion scripts, and the bash one completes kubectl-promotion', async () => {
    const zsh = await kubectl('promotion', 'completion', 'zsh');
    expect(zsh.stdout).toContain('compdef _kubectl_promotion kubectl-promotion');
    const bash = await kubectl('promotion', 'completion', 'bash');
    expect(bash.code).toBe(0);
    const script = join(dir, 'completion.bash');
    writeFileSync(script, bash.stdout);
    const completed = await run('/bin/bash', [
      '-c',
      `source ${script}; COMP_WORDS=(kubectl-promotion approvals s); COMP_CWORD=2; _kubectl_promotion; echo "\${COMPREPLY[*]}"`,
    ]);
    expect(completed).toMatchObject({ code: 0, stdout: 'sign\n' });
    const wrong = await kubectl('promotion', 'completion', 'fish');
    expect(wrong.code).toBe(2);
  });
});
