/**
 * `promotion-gateway rollback`, in process with a real key: the statement it signs is a rollback
 * statement (its own typ, verified by the gateway's check for exactly that target, never
 * passing for an approval), with and without --to; usage mistakes exit 2.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { checkRollbackStatement } from '../../../src/auth/rollback-statement.js';
import { checkStatement } from '../../../src/auth/statement.js';
import { runApprovals } from '../../../src/cli/approvals.js';
import { runRollback } from '../../../src/cli/rollback.js';
import { tempDir } from '../../support/temp-dirs.js';

async function run(
  runner: (args: string[], out: PassThrough) => Promise<number>,
  ...args: string[]
): Promise<{ code: number; out: string }> {
  const out = new PassThrough();
  let text = '';
  out.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const code = await runner(args, out);
  return { code, out: text };
}

const rollback = (...args: string[]) => run((a, out) => runRollback(a, { env: {}, out }), ...args);
const approvals = (...args: string[]) => run((a, out) => runApprovals(a, {}, out), ...args);

const POLICY = { maxLifetimeSeconds: 900, clockToleranceSeconds: 5 };
const TARGET = { pipeline: { namespace: 'apps', name: 'podinfo' }, environment: 'prod' };

async function aliceKeys(): Promise<{ key: string; publicKey: string }> {
  const dir = tempDir('rollback-');
  expect((await approvals('keygen', '--name', 'alice', '--out', dir)).code).toBe(0);
  const publicKey = await readFile(join(dir, 'alice.pub.pem'), 'utf8');
  return { key: join(dir, 'alice.key.pem'), publicKey };
}

describe('promotion-gateway rollback', () => {
  it('signs a rollback statement the gateway verifies for exactly that environment', async () => {
    const { key, publicKey } = await aliceKeys();
    const signed = await rollback(
      ...['apps/podinfo', 'prod', '--to', '6.5.0', '--reason', 'errors up'],
      ...['--name', 'alice', '--key', key],
    );
    expect(signed.code).toBe(0);
    const jws = signed.out.trim();
    const config = {
      approvers: [{ name: 'alice', publicKeys: [publicKey], groups: [], oidcSubjects: [] }],
      maxStatementLifetimeSeconds: 900,
      clockToleranceSeconds: 5,
    };
    const checked = await checkRollbackStatement(config, jws, TARGET, Date.now());
    expect(checked.ok && checked.value.rollback).toEqual({
      revision: '6.5.0',
      reason: 'errors up',
      statement: jws,
    });
    expect(checked.ok && checked.value.principal?.name).toBe('alice');
    const elsewhere = await checkRollbackStatement(
      config,
      jws,
      { ...TARGET, environment: 'staging' },
      Date.now(),
    );
    expect(elsewhere.ok).toBe(false);
    // Its own typ: never an approval statement.
    const asApproval = await checkStatement(
      jws,
      { name: 'alice', publicKeys: [publicKey] },
      POLICY,
      Date.now(),
    );
    expect(asApproval.ok).toBe(false);
  });

  it('without --to asks for the previous revision', async () => {
    const { key, publicKey } = await aliceKeys();
    const signed = await rollback(
      'apps/podinfo',
      'prod',
      '--reason',
      'r',
      '--name',
      'alice',
      '--key',
      key,
    );
    const config = {
      approvers: [{ name: 'alice', publicKeys: [publicKey], groups: [], oidcSubjects: [] }],
      maxStatementLifetimeSeconds: 900,
      clockToleranceSeconds: 5,
    };
    const checked = await checkRollbackStatement(config, signed.out.trim(), TARGET, Date.now());
    expect(checked.ok && checked.value.rollback?.revision).toBeUndefined();
  });

  it('exits 2 on a missing pipeline, environment or reason', async () => {
    const { key } = await aliceKeys();
    expect((await rollback('--reason', 'r', '--name', 'alice', '--key', key)).code).toBe(2);
    expect((await rollback('apps/podinfo', 'prod', '--name', 'alice', '--key', key)).code).toBe(2);
    expect(
      (await rollback('podinfo', 'prod', '--reason', 'r', '--name', 'alice', '--key', key)).code,
    ).toBe(2);
  });
});
