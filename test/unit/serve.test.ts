import { writeFileSync } from 'node:fs';
import { tempDir } from '../support/temp-dirs.js';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/load.js';
import { managementKubeConfig, runServe } from '../../src/serve.js';

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

  it('exits 2 when the claim timeout does not exceed a webhook delivery, naming both fields', async () => {
    const file = join(tempDir('pg-serve-'), 'config.yaml');
    writeFileSync(
      file,
      [
        'promotion:',
        '  retry: { claimTimeoutMs: 10000 }',
        '  pullRequest: { gitTimeoutMs: 1000, apiTimeoutMs: 100 }',
        '  webhooks:',
        '    deploy: { url: "https://deploy.example.com/", timeoutMs: 15000 }',
      ].join('\n'),
    );
    const out = capture();
    expect(await runServe(['--config', file], {}, out.stream)).toBe(2);
    expect(out.text()).toContain(
      '/promotion/retry/claimTimeoutMs: 10000 must exceed /promotion/webhooks/deploy/timeoutMs (15000)',
    );
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
