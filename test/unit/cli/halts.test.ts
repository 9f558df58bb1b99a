/**
 * The approvers' stop-the-line on the command line, in process with real keys and files:
 * `halts sign` and `halts lift` make statements the gateway's own check accepts, with the
 * claims asked for; `approvals sign --break-glass` carries its reason; mistakes exit 2.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { checkHaltStatement } from '../../../src/auth/halt-statement.js';
import { verifyStatement } from '../../../src/auth/statement.js';
import { runApprovals } from '../../../src/cli/approvals.js';
import { runHalts } from '../../../src/cli/halts.js';
import { tempDir } from '../../support/temp-dirs.js';

type Runner = typeof runHalts;

async function run(runner: Runner, ...args: string[]): Promise<{ code: number; out: string }> {
  const out = new PassThrough();
  let text = '';
  out.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const code = await runner(args, {}, out);
  return { code, out: text };
}

/** carol's key pair, made by `approvals keygen`. */
async function carol(): Promise<{ key: string; pub: string }> {
  const dir = tempDir('halts-');
  expect((await run(runApprovals, 'keygen', '--name', 'carol', '--out', dir)).code).toBe(0);
  return {
    key: join(dir, 'carol.key.pem'),
    pub: await readFile(join(dir, 'carol.pub.pem'), 'utf8'),
  };
}

async function checked(statement: string, pub: string) {
  const config = {
    approvers: [{ name: 'carol', publicKeys: [pub], oidcSubjects: [], groups: [] }],
    maxStatementLifetimeSeconds: 900,
    clockToleranceSeconds: 5,
  };
  const result = await checkHaltStatement(config, statement, Date.now());
  if (!result.ok) throw new Error(`refused: ${result.reason}`);
  return result.value.claims;
}

describe('halts sign and lift', () => {
  it('sign a halt of one Pipeline, or of a selector in a namespace, that the gateway accepts', async () => {
    const { key, pub } = await carol();
    const signer = ['--name', 'carol', '--key', key];
    const one = await run(
      runHalts,
      'sign',
      ...signer,
      ...['--pipeline', 'apps/podinfo', '--env', 'prod', '--reason', 'incident 42'],
      ...['--expires', '2026-12-01T18:00:00Z', '--ttl', '120'],
    );
    expect(one.code).toBe(0);
    const claims = await checked(one.out.trim(), pub);
    expect(claims).toMatchObject({
      sub: 'carol',
      action: 'halt',
      pipeline: 'apps/podinfo',
      environment: 'prod',
      reason: 'incident 42',
      haltExpiresAt: '2026-12-01T18:00:00Z',
    });
    expect(claims.exp - claims.iat).toBe(120);
    const wide = await run(
      runHalts,
      'sign',
      ...signer,
      ...['--selector', 'team=payments', '--namespace', 'apps', '--reason', 'freeze'],
    );
    expect(await checked(wide.out.trim(), pub)).toMatchObject({
      action: 'halt',
      selector: 'team=payments',
      namespace: 'apps',
    });
  });

  it('sign a lift by halt id, from one Pipeline if asked', async () => {
    const { key, pub } = await carol();
    const lift = await run(
      runHalts,
      'lift',
      ...['--name', 'carol', '--key', key, '--halt-id', 'h-123', '--pipeline', 'apps/podinfo'],
    );
    expect(lift.code).toBe(0);
    const claims = await checked(lift.out.trim(), pub);
    expect(claims).toMatchObject({ action: 'lift', haltId: 'h-123', pipeline: 'apps/podinfo' });
    expect(claims.reason).toBeUndefined();
  });

  it.each([
    [['--reason', 'x'], 'give exactly one of --pipeline and --selector'],
    [['--reason', 'x', '--pipeline', 'apps/a', '--selector', 'a=b'], 'give exactly one of'],
    [['--pipeline', 'apps/a'], '--reason is required'],
    [['--reason', 'x', '--pipeline', 'apps/a', '--namespace', 'apps'], '--namespace narrows'],
    [['--reason', 'x', '--pipeline', 'apps/a', '--expires', 'tomorrow'], '--expires must be'],
    [['--reason', 'x', '--pipeline', 'not-a-pipeline'], '--pipeline must be NAMESPACE/NAME'],
    [
      ['--reason', 'x', '--pipeline', 'apps/a', '--expires', '2099-02-30T00:00:00Z'],
      '--expires must be an RFC 3339 date-time on a calendar date that exists',
    ],
    [
      ['--reason', 'incident \u001b[2J', '--pipeline', 'apps/a'],
      '--reason must not contain control or invisible formatting characters (U+001B)',
    ],
  ])('refuse %j with exit 2 and the usage', async (extra, message) => {
    const { key } = await carol();
    const refused = await run(runHalts, 'sign', '--name', 'carol', '--key', key, ...extra);
    expect(refused.code).toBe(2);
    expect(refused.out).toContain(message);
    expect(refused.out).toContain('Usage: promotion-gateway halts sign');
  });

  it('answer --help on each command, and an unknown one with exit 2', async () => {
    for (const command of ['sign', 'lift']) {
      const help = await run(runHalts, command, '--help');
      expect([help.code, help.out]).toEqual([0, expect.stringContaining(`halts ${command}`)]);
    }
    expect((await run(runHalts, 'stop')).code).toBe(2);
    expect((await run(runHalts)).code).toBe(2);
  });
});

describe('approvals sign --break-glass', () => {
  const statementArgs = (key: string) => [
    'sign',
    ...['--name', 'carol', '--key', key, '--pipeline', 'apps/podinfo', '--env', 'prod'],
    ...['--revision', '6.6.1'],
  ];

  it('signs a break-glass statement carrying its reason', async () => {
    const { key, pub } = await carol();
    const signed = await run(
      runApprovals,
      ...statementArgs(key),
      '--break-glass',
      '--comment',
      'hotfix for CVE-1',
    );
    expect(signed.code).toBe(0);
    const claims = await verifyStatement(
      signed.out.trim(),
      { name: 'carol', publicKeys: [pub] },
      { maxLifetimeSeconds: 900, clockToleranceSeconds: 5 },
      Date.now(),
    );
    expect(claims).toMatchObject({ decision: 'break-glass', comment: 'hotfix for CVE-1' });
  });

  it.each([
    [['--break-glass'], '--break-glass needs --comment'],
    [['--break-glass', '--comment', '  '], '--break-glass needs --comment'],
    [
      ['--break-glass', '--reject', '--comment', 'x'],
      '--reject and --break-glass exclude each other',
    ],
    [
      ['--comment', 'LGTM \u202egnp.exe'],
      '--comment must not contain control or invisible formatting characters (U+202E)',
    ],
  ])('refuses %j with exit 2', async (extra, message) => {
    const { key } = await carol();
    const refused = await run(runApprovals, ...statementArgs(key), ...extra);
    expect(refused.code).toBe(2);
    expect(refused.out).toContain(message);
  });
});
