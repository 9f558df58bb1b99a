import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readState, writeState, type DemoState } from '../src/state.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

function state(gatewayUrl: string): DemoState {
  return {
    gatewayUrl,
    viewUrl: 'http://127.0.0.1:8081',
    adminUrl: 'http://127.0.0.1:9000',
    kubeconfig: 'kubeconfig',
    hmacKeys: { dev: 'key' },
    viewerToken: 'token',
    approver: { name: 'alice', privateKeyPem: 'pem' },
    ci: { issuer: 'iss', audience: 'aud', privateKeyPem: 'pem', repository: 'acme/podinfo' },
    forge: { apiUrl: 'http://127.0.0.1:9001', repo: 'acme/fleet', token: 't' },
  };
}

describe('the demo state file', () => {
  it('is replaced whole, owner-only, with nothing left beside it', async () => {
    const root = await mkdtemp(join(tmpdir(), 'demo-state-'));
    dirs.push(root);
    const dir = join(root, '8080');
    await writeState(dir, state('http://127.0.0.1:8080'));
    await writeState(dir, state('http://127.0.0.1:8090'));
    expect(await readdir(dir)).toStrictEqual(['state.json']);
    expect((await stat(join(dir, 'state.json'))).mode & 0o777).toBe(0o600);
    expect((await readState(dir, 8080)).gatewayUrl).toBe('http://127.0.0.1:8090');
  });
});
