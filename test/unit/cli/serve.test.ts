import { execFile } from 'node:child_process';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { tempDir } from '../../support/temp-dirs.js';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../src/config/load.js';
import { packagePath } from '../../../src/paths.js';
import { managementKubeConfig, runServe } from '../../../src/cli/serve.js';

function capture(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

describe('promotion-gateway serve', () => {
  it('exits 2 naming every bad field, and never echoes a secret value', async () => {
    const dir = tempDir('pg-serve-');
    const file = join(dir, 'config.yaml');
    writeFileSync(
      file,
      [
        'server:',
        '  port: 70000',
        'clusters:',
        '  - name: Dev_Cluster',
        '    hmacKeys: [{ value: super-secret-key-material }]',
        'resync:',
        '  intervalMs: -5',
      ].join('\n'),
    );
    const out = capture();
    const code = await runServe(['--config', file], {}, out.stream);
    expect(code).toBe(2);
    expect(out.text()).toContain('/server/port');
    expect(out.text()).toContain('/clusters/0/name');
    expect(out.text()).toContain('/resync/intervalMs');
    expect(out.text()).not.toContain('super-secret-key-material');
  });

  it('exits 2 on a whsec_ webhook secret that is not base64, naming the field, not the secret', async () => {
    const file = join(tempDir('pg-serve-'), 'config.yaml');
    writeFileSync(
      file,
      'promotion:\n  webhooks:\n    deploy: { url: "https://d.example.com/", secret: { value: "whsec_n0t-base64!!" } }\n',
    );
    const out = capture();
    expect(await runServe(['--config', file], {}, out.stream)).toBe(2);
    expect(out.text()).toContain('config /promotion/webhooks/deploy/secret: starts with "whsec_"');
    expect(out.text()).not.toContain('n0t-base64');
  });

  it('exits 2 when --config is missing', async () => {
    const out = capture();
    expect(await runServe([], {}, out.stream)).toBe(2);
    expect(out.text()).toContain('--config');
  });

  it('answers --help with its usage and exit 0, and an unknown option with exit 2', async () => {
    const help = capture();
    expect(await runServe(['--help'], {}, help.stream)).toBe(0);
    expect(help.text()).toContain('Usage: promotion-gateway serve --config FILE');
    const bad = capture();
    expect(await runServe(['--bogus'], {}, bad.stream)).toBe(2);
    expect(bad.text()).toContain("Unknown option '--bogus'");
  });

  it('exits 2 saying what is missing when there is neither a kubeconfig nor a pod identity', async () => {
    const dir = tempDir('pg-serve-');
    const file = join(dir, 'config.yaml');
    writeFileSync(file, 'server:\n  port: 0\n');
    const out = capture();
    expect(await runServe(['--config', file], {}, out.stream)).toBe(2);
    expect(out.text()).toContain('no management cluster credentials: not running in a cluster');
    expect(out.text()).toContain('--kubeconfig');
  });
});

describe('managementKubeConfig', () => {
  const config = defaultConfig({});
  const inCluster = { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' };

  it('names the missing service account token inside a pod without one', () => {
    const missing = join(tempDir('pg-serve-'), 'token');
    const answer = managementKubeConfig(config, undefined, undefined, inCluster, missing);
    expect(answer).toBe(
      `no management cluster credentials: no service account token at ${missing}; give --kubeconfig PATH or management.kubeconfig in the configuration, or run in a pod with a service account`,
    );
  });

  it('uses the pod identity when the environment and the token are there', () => {
    const token = join(tempDir('pg-serve-'), 'token');
    writeFileSync(token, 'pod-token');
    const answer = managementKubeConfig(config, undefined, undefined, inCluster, token);
    if (typeof answer === 'string') throw new Error(answer);
    expect(answer.getCurrentCluster()?.server).toBe('https://10.0.0.1:443');
  });
});

/** A kubeconfig with contexts `good` (current), `no-user`, `lost-cluster` and `lost-user`. */
const KUBECONFIG = `apiVersion: v1
kind: Config
clusters:
  - name: mgmt
    cluster: { server: "https://127.0.0.1:6443" }
users:
  - name: gateway
    user: { token: kubeconfig-token-value }
contexts:
  - name: good
    context: { cluster: mgmt, user: gateway }
  - name: no-user
    context: { cluster: mgmt }
  - name: lost-cluster
    context: { cluster: elsewhere, user: gateway }
  - name: lost-user
    context: { cluster: mgmt, user: somebody }
current-context: good
`;

describe('serve with a management kubeconfig it cannot use', () => {
  const dir = tempDir('pg-serve-kc-');
  const config = join(dir, 'config.yaml');
  writeFileSync(config, 'server:\n  port: 0\n');
  const kubeconfig = (name: string, text: string) => {
    const file = join(dir, name);
    writeFileSync(file, text);
    return file;
  };
  const good = kubeconfig('good.yaml', KUBECONFIG);
  const noCurrent = kubeconfig(
    'no-current.yaml',
    KUBECONFIG.replace('current-context: good\n', ''),
  );
  const notYaml = kubeconfig(
    'not-yaml.yaml',
    'users:\n  - name: gateway\n    user: { token: "kubeconfig-token-value\n',
  );
  const empty = kubeconfig('empty.yaml', '');
  const noServer = kubeconfig('no-server.yaml', 'clusters:\n  - name: mgmt\n    cluster: {}\n');

  it.each([
    [
      'a missing file',
      ['--kubeconfig', '/nonexistent/kc'],
      `management kubeconfig "/nonexistent/kc", its current-context: cannot read the file (ENOENT)`,
    ],
    [
      'a folder',
      ['--kubeconfig', dir],
      `management kubeconfig "${dir}", its current-context: cannot read the file (EISDIR)`,
    ],
    [
      'a file that is not YAML',
      ['--kubeconfig', notYaml],
      `management kubeconfig "${notYaml}", its current-context: not valid YAML at line 4, column 1`,
    ],
    [
      'an empty file',
      ['--kubeconfig', empty, '--context', 'good'],
      `management kubeconfig "${empty}", context "good": not a kubeconfig (expected a YAML mapping with clusters, users and contexts)`,
    ],
    [
      'a cluster without server',
      ['--kubeconfig', noServer],
      `management kubeconfig "${noServer}", its current-context: not a usable kubeconfig (clusters[0].cluster.server is missing)`,
    ],
    [
      'no such context',
      ['--kubeconfig', good, '--context', 'prod'],
      `management kubeconfig "${good}", context "prod": no such context (it defines "good", "no-user", "lost-cluster", "lost-user")`,
    ],
    [
      'a context without user',
      ['--kubeconfig', good, '--context', 'no-user'],
      `management kubeconfig "${good}", context "no-user": names no user`,
    ],
    [
      'a context naming a cluster not defined',
      ['--kubeconfig', good, '--context', 'lost-cluster'],
      `management kubeconfig "${good}", context "lost-cluster": names cluster "elsewhere", which the file does not define`,
    ],
    [
      'a context naming a user not defined',
      ['--kubeconfig', good, '--context', 'lost-user'],
      `management kubeconfig "${good}", context "lost-user": names user "somebody", which the file does not define`,
    ],
    [
      'no current-context and no --context',
      ['--kubeconfig', noCurrent],
      `management kubeconfig "${noCurrent}", its current-context: the file sets no current-context; give --context NAME or management.context`,
    ],
  ])('%s: exits 2 with one line naming the file and the context', async (_what, args, line) => {
    const out = capture();
    expect(await runServe(['--config', config, ...args], {}, out.stream)).toBe(2);
    expect(out.text()).toBe(`serve: ${line}\n`);
    expect(out.text()).not.toContain('kubeconfig-token-value');
  });

  it("takes the configuration's management.kubeconfig and management.context, and names them", async () => {
    const file = join(dir, 'config-with-context.yaml');
    writeFileSync(file, `management:\n  kubeconfig: good.yaml\n  context: lost-user\n`);
    const out = capture();
    expect(await runServe(['--config', file], {}, out.stream)).toBe(2);
    expect(out.text()).toBe(
      `serve: management kubeconfig "${good}", context "lost-user": names user "somebody", which the file does not define\n`,
    );
  });

  it('loads a usable context, with certificate files taken relative to the kubeconfig', () => {
    const withCa = kubeconfig(
      'with-ca.yaml',
      KUBECONFIG.replace(
        'server: "https://127.0.0.1:6443"',
        'server: "https://127.0.0.1:6443", certificate-authority: ca.crt',
      ),
    );
    const answer = managementKubeConfig(defaultConfig({}), withCa, undefined, {});
    if (typeof answer === 'string') throw new Error(answer);
    expect(answer.getCurrentContext()).toBe('good');
    expect(answer.getCurrentCluster()?.caFile).toBe(join(dir, 'ca.crt'));
    expect(answer.getCurrentUser()?.name).toBe('gateway');
  });

  // The bundled bin; only one built from this source shows anything: `npm run build` first.
  const bin = packagePath('dist', 'server.js');
  const fresh =
    existsSync(bin) &&
    statSync(bin).mtimeMs >= statSync(packagePath('src', 'cli', 'serve.ts')).mtimeMs;
  it.runIf(fresh)(
    'exits 2 with the same line through the built bin, node dist/server.js serve',
    async () => {
      const answer = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
        (resolve) => {
          execFile(
            process.execPath,
            [bin, 'serve', '--config', config, '--kubeconfig', '/nonexistent/kc'],
            { encoding: 'utf8' },
            (err, stdout, stderr) => {
              resolve({ code: err === null ? 0 : (err.code as number), stdout, stderr });
            },
          );
        },
      );
      expect(answer).toEqual({
        code: 2,
        stdout: `serve: management kubeconfig "/nonexistent/kc", its current-context: cannot read the file (ENOENT)\n`,
        stderr: '',
      });
    },
  );
});
