/**
 * `flux-config`'s answers to what it cannot use, in process: every mistake or unusable input
 * exits 2 with one line on stderr naming the flag, file or context (never a stack trace, never
 * a credential), stdout stays empty, and kubeconfigs are found and merged as kubectl finds them.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { FLUX_CONFIG_USAGE, runFluxConfig } from '../../../src/cli/flux-config.js';
import { loadManagementAccess } from '../../../src/cli/flux-config-source.js';
import { closedPort } from '../../support/net.js';
import { tempDir } from '../../support/temp-dirs.js';

const dir = tempDir('flux-config-unit-');
const TOKEN = 'a-token-that-must-never-be-printed';

function capture(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  return { stream, text: () => text };
}

async function run(args: string[], env: Record<string, string | undefined> = {}) {
  const out = capture();
  const err = capture();
  const code = await runFluxConfig(args, { env, out: out.stream, err: err.stream });
  return { code, out: out.text(), err: err.text() };
}

/** A kubeconfig file with one context `name` on `server`, current unless `current: false`. */
function kubeconfig(file: string, name: string, server: string, current = true): string {
  const path = join(dir, file);
  writeFileSync(
    path,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name, cluster: { server, 'insecure-skip-tls-verify': true } }],
      users: [{ name, user: { token: TOKEN } }],
      contexts: [{ name, context: { cluster: name, user: name } }],
      ...(current ? { 'current-context': name } : {}),
    }),
  );
  return path;
}

const ADDRESS = ['--address', 'https://gw.example.com'];

/** Exit 2, nothing on stdout, and exactly one line on stderr, which is returned. */
function oneLineProblem(result: { code: number; out: string; err: string }): string {
  expect(result.code).toBe(2);
  expect(result.out).toBe('');
  const lines = result.err.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(result.err).not.toMatch(/\n\s+at /);
  expect(result.err).not.toContain(TOKEN);
  return lines[0] ?? '';
}

describe('flux-config command line', () => {
  it('prints its usage for --help on stdout and exits 0', async () => {
    const result = await run(['--help']);
    expect(result).toEqual({ code: 0, out: FLUX_CONFIG_USAGE, err: '' });
    expect(result.out).toContain('--per-namespace');
  });

  it.each([
    [[], '--address URL is required'],
    [['--address', 'ftp://gw'], '--address must be an http(s) URL without query or fragment'],
    [['--address', 'gw.example.com'], '--address must be an http(s) URL, not "gw.example.com"'],
    [['--address', 'https://u:p@gw'], '--address must not carry credentials'],
    [[...ADDRESS, '--generate-keys'], '--generate-keys needs -o DIR'],
    [[...ADDRESS, '--flux-namespace', 'Flux_System'], '--flux-namespace must be a namespace name'],
    [[...ADDRESS, '--bogus'], "Unknown option '--bogus'"],
  ])('refuses %j with exit 2 and its usage on stderr', async (args, message) => {
    const result = await run(args);
    expect(result.code).toBe(2);
    expect(result.out).toBe('');
    expect(result.err.split('\n')[0]).toContain(message);
    expect(result.err).toContain(FLUX_CONFIG_USAGE);
  });

  it('names the missing kubeconfig: --kubeconfig, then KUBECONFIG, then ~/.kube/config', async () => {
    const missing = join(dir, 'none.yaml');
    expect(oneLineProblem(await run([...ADDRESS, '--kubeconfig', missing]))).toBe(
      `flux-config: no kubeconfig at ${missing}: give --kubeconfig PATH or set KUBECONFIG`,
    );
    expect(oneLineProblem(await run(ADDRESS, { KUBECONFIG: missing }))).toContain(
      `no kubeconfig at ${missing}`,
    );
    const home = join(dir, 'home');
    expect(oneLineProblem(await run(ADDRESS, { HOME: home }))).toContain(
      `no kubeconfig at ${join(home, '.kube', 'config')}`,
    );
  });

  it('says a kubeconfig is invalid without quoting it', async () => {
    const path = join(dir, 'broken.yaml');
    writeFileSync(path, `users: [{ name: x, user: { token: ${TOKEN} ]\n`);
    expect(oneLineProblem(await run([...ADDRESS, '--kubeconfig', path]))).toBe(
      `flux-config: the kubeconfig ${path} is not a valid kubeconfig`,
    );
  });

  it('merges KUBECONFIG files as kubectl does and names a context that is not there', async () => {
    const first = kubeconfig('first.yaml', 'mgmt', 'https://127.0.0.1:1', false);
    const second = kubeconfig('second.yaml', 'other', 'https://127.0.0.1:2');
    const merged = loadManagementAccess(undefined, undefined, { KUBECONFIG: `${first}:${second}` });
    expect(merged.kubeConfig.getContexts().map((c) => c.name)).toEqual(['mgmt', 'other']);
    expect(merged.where).toBe(`context "other" of ${first}:${second} (https://127.0.0.1:2)`);
    const chosen = loadManagementAccess(undefined, 'mgmt', { KUBECONFIG: `${first}:${second}` });
    expect(chosen.where).toContain('(https://127.0.0.1:1)');
    expect(
      oneLineProblem(await run([...ADDRESS, '--context', 'prod'], { KUBECONFIG: first })),
    ).toBe(`flux-config: context "prod" is not in the kubeconfig ${first}`);
    expect(oneLineProblem(await run(ADDRESS, { KUBECONFIG: first }))).toBe(
      `flux-config: the kubeconfig ${first} has no current context: give --context NAME`,
    );
  });

  it('names the context and server of a management cluster it cannot reach', async () => {
    const port = await closedPort();
    const path = kubeconfig('closed.yaml', 'mgmt', `https://127.0.0.1:${String(port)}`);
    expect(oneLineProblem(await run([...ADDRESS, '--kubeconfig', path]))).toBe(
      `flux-config: cannot list Pipelines through context "mgmt" of ${path} (https://127.0.0.1:${String(port)}): the cluster is unreachable (ECONNREFUSED)`,
    );
  });

  it('names a server whose URL holds a password or token without them, as kubectl does', async () => {
    const port = String(await closedPort());
    const server = `https://admin:S3cret@127.0.0.1:${port}/?access_token=T0ken&x=1`;
    const path = kubeconfig('userinfo.yaml', 'mgmt', server);
    const line = oneLineProblem(await run([...ADDRESS, '--kubeconfig', path]));
    expect(line).toBe(
      `flux-config: cannot list Pipelines through context "mgmt" of ${path} (https://[REDACTED]@127.0.0.1:${port}/?access_token=[REDACTED]&x=1): the cluster is unreachable (ECONNREFUSED)`,
    );
    expect(loadManagementAccess(path, undefined, {}).where).not.toMatch(/S3cret|T0ken/);
    const address = await run(['--address', 'https://gw:S3cret@gw example']);
    expect(address.code).toBe(2);
    expect(address.err).toContain('--address must be an http(s) URL, not "https://[REDACTED]@gw');
    expect(address.err).not.toContain('S3cret');
  });

  it('names the gateway configuration and its bad field, never its secrets', async () => {
    const path = kubeconfig('ok.yaml', 'mgmt', 'https://127.0.0.1:1');
    const config = join(dir, 'gateway.yaml');
    writeFileSync(
      config,
      stringify({ clusters: [{ name: 'Dev', hmacKeys: [{ value: TOKEN }] }], sever: {} }),
    );
    const line = oneLineProblem(await run([...ADDRESS, '--kubeconfig', path, '--config', config]));
    expect(line).toContain(`flux-config: the gateway configuration ${config} is not valid: `);
    expect(line).toContain('config /clusters/0/name: must match pattern');
    expect(line).toContain('config /sever: is not a known field');
    expect(oneLineProblem(await run([...ADDRESS, '--config', join(dir, 'nope.yaml')]))).toBe(
      `flux-config: cannot read the gateway configuration ${join(dir, 'nope.yaml')} (ENOENT)`,
    );
  });
});
