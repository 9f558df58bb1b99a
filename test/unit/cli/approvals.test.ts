/**
 * The approvers' command line, in process with real keys and files: keygen, sign, and the
 * offline verifier, which accepts stored records and catches one altered byte.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { verifyStatement } from '../../../src/auth/statement.js';
import { runApprovals } from '../../../src/cli/approvals.js';
import type { AuthorizationRecord } from '../../../src/pipeline/pipeline-resource.js';
import { tempDir } from '../../support/temp-dirs.js';

async function run(...args: string[]): Promise<{ code: number; out: string }> {
  const out = new PassThrough();
  let text = '';
  out.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const code = await runApprovals(args, {}, out);
  return { code, out: text };
}

/** An approver's key pair made by `keygen`, and a gateway config naming them. */
async function keysAndConfig(dir: string, name: string, alg = 'EdDSA') {
  expect((await run('keygen', '--name', name, '--out', dir, '--alg', alg)).code).toBe(0);
  const config = join(dir, 'config.yaml');
  await writeFile(
    config,
    stringify({
      approvals: {
        approvers: [{ name, publicKeys: [{ file: join(dir, `${name}.pub.pem`) }] }],
      },
    }),
  );
  return { key: join(dir, `${name}.key.pem`), pub: join(dir, `${name}.pub.pem`), config };
}

async function signed(key: string, revision: string, extra: string[] = []): Promise<string> {
  const signedOut = await run(
    'sign',
    ...['--name', 'alice', '--key', key, '--pipeline', 'apps/podinfo', '--env', 'prod'],
    ...['--revision', revision, '--no-preview', ...extra],
  );
  expect(signedOut.code).toBe(0);
  return signedOut.out.trim();
}

/** The record the gateway stores for `original`, holding `statement` (altered or not). */
function record(
  original: string,
  revision: string,
  decision: 'approve' | 'reject' = 'approve',
  statement = original,
) {
  const claims = JSON.parse(Buffer.from(original.split('.')[1]!, 'base64url').toString('utf8'));
  const r: AuthorizationRecord = {
    principal: 'alice',
    kind: 'human',
    decision,
    revision,
    time: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    jti: claims.jti,
    statement,
  };
  return r;
}

async function pipelineFile(dir: string, approvals: AuthorizationRecord[]): Promise<string> {
  const file = join(dir, `pipeline-${Math.random().toString(36).slice(2)}.yaml`);
  await writeFile(
    file,
    stringify({
      apiVersion: 'pipelines.weave.works/v1alpha1',
      kind: 'Pipeline',
      metadata: { namespace: 'apps', name: 'podinfo' },
      status: { environments: { prod: { approvals } } },
    }),
  );
  return file;
}

describe('approvals keygen and sign', () => {
  it.each(['EdDSA', 'ES256'])(
    'make a private key only its owner reads, and %s statements',
    async (alg) => {
      const dir = tempDir('approvals-');
      const { key, pub } = await keysAndConfig(dir, 'alice', alg);
      expect((await stat(key)).mode & 0o777).toBe(0o600);
      const jws = await signed(key, '6.6.0', ['--comment', 'LGTM', '--ttl', '120']);
      const claims = await verifyStatement(
        jws,
        { name: 'alice', publicKeys: [await readFile(pub, 'utf8')] },
        { maxLifetimeSeconds: 900, clockToleranceSeconds: 5 },
        Date.now(),
      );
      expect(claims).toMatchObject({
        sub: 'alice',
        pipeline: 'apps/podinfo',
        environment: 'prod',
        revision: '6.6.0',
        decision: 'approve',
        comment: 'LGTM',
      });
      expect(claims!.exp - claims!.iat).toBe(120);
    },
  );

  it('never overwrites an existing key', async () => {
    const dir = tempDir('approvals-');
    await keysAndConfig(dir, 'alice');
    const again = await run('keygen', '--name', 'alice', '--out', dir);
    expect(again.code).toBe(1);
    expect(again.out).toContain('EEXIST');
  });

  it('answers --help on every command and a usage mistake with exit 2', async () => {
    for (const command of ['keygen', 'sign', 'verify']) {
      const help = await run(command, '--help');
      expect([command, help.code, help.out]).toEqual([
        command,
        0,
        expect.stringContaining('Usage:'),
      ]);
    }
    expect((await run('--help')).code).toBe(0);
    const missing = await run('sign', '--name', 'alice');
    expect(missing.code).toBe(2);
    expect(missing.out).toContain('--key is required');
    expect((await run('sign', '--bogus')).code).toBe(2);
    expect((await run('frobnicate')).code).toBe(2);
  });
});

describe('approvals verify', () => {
  it('accepts the stored statements and catches one altered byte', async () => {
    const dir = tempDir('approvals-');
    const { key, config } = await keysAndConfig(dir, 'alice');
    const jws = await signed(key, '6.6.0');
    const rejection = await signed(key, '6.5.0', ['--reject']);
    const good = await pipelineFile(dir, [
      record(jws, '6.6.0'),
      record(rejection, '6.5.0', 'reject'),
    ]);
    const ok = await run('verify', '--config', config, '--from', good);
    expect(ok).toMatchObject({ code: 0 });
    expect(ok.out).toContain('2 signed statement(s) verified, 0 failed');

    // One byte of the signature, one byte of the signed payload, one field of the record.
    const flipped = (text: string, at: number) =>
      text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);
    const signatureAt = jws.length - 5;
    const payloadAt = jws.indexOf('.') + 10;
    for (const [what, records] of [
      ['signature', [record(jws, '6.6.0', 'approve', flipped(jws, signatureAt))]],
      ['payload', [record(jws, '6.6.0', 'approve', flipped(jws, payloadAt))]],
      ['record revision', [record(jws, '6.6.1')]],
      ['record decision', [record(jws, '6.6.0', 'reject')]],
    ] as const) {
      const bad = await run(
        'verify',
        '--config',
        config,
        '--from',
        await pipelineFile(dir, [...records]),
      );
      expect([what, bad.code, bad.out]).toEqual([what, 1, expect.stringContaining('FAILED')]);
    }
  });

  it('reports unsigned records without failing them', async () => {
    const dir = tempDir('approvals-');
    const { config } = await keysAndConfig(dir, 'alice');
    const ci: AuthorizationRecord = {
      principal: 'ci:e2e',
      kind: 'ci',
      decision: 'approve',
      revision: '6.6.0',
      time: '2026-11-24T10:00:00Z',
    };
    const result = await run('verify', '--config', config, '--from', await pipelineFile(dir, [ci]));
    expect(result.code).toBe(0);
    expect(result.out).toContain('UNSIGNED  prod  6.6.0  ci:e2e');
  });
});
