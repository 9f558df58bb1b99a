/**
 * The train form of `approvals sign`, in process with real keys and files: it signs one approval
 * of a combination named by its members' revisions (its digest computed, a given --digest
 * checked) or, without them, of the release waiting as a loopback server answering the gateway's
 * train door says; it refuses the flags that belong to a Pipeline's approval, and `approvals
 * verify` checks the statement as each member's record holds it, catching a record of another
 * revision.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { checkSigned } from '../../../src/auth/statement.js';
import { membersDigest, TRAIN_STATEMENT_FORM } from '../../../src/auth/train-statement.js';
import { runApprovals } from '../../../src/cli/approvals.js';
import type { AuthorizationRecord } from '../../../src/pipeline/pipeline-resource.js';
import { startJsonGateway, type JsonGateway } from '../../support/json-gateway.js';
import { tempDir } from '../../support/temp-dirs.js';

const MEMBERS = { api: '2.4.0', web: '5.1.0' };

async function run(...args: string[]): Promise<{ code: number; out: string }> {
  const out = new PassThrough();
  let text = '';
  out.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const code = await runApprovals(args, { PROMOTION_GATEWAY_TOKEN: 'reader' }, out);
  return { code, out: text };
}

async function keys(dir: string) {
  expect((await run('keygen', '--name', 'alice', '--out', dir)).code).toBe(0);
  const config = join(dir, 'config.yaml');
  const pub = join(dir, 'alice.pub.pem');
  await writeFile(
    config,
    stringify({ approvals: { approvers: [{ name: 'alice', publicKeys: [{ file: pub }] }] } }),
  );
  return { key: join(dir, 'alice.key.pem'), pub, config };
}

/** The claims of train statement `jws`, checked against alice's public key in `pub`. */
async function claimsOf(jws: string, pub: string) {
  const checked = await checkSigned(
    jws,
    { name: 'alice', publicKeys: [await readFile(pub, 'utf8')] },
    { maxLifetimeSeconds: 900, clockToleranceSeconds: 5 },
    Date.now(),
    TRAIN_STATEMENT_FORM,
  );
  return checked.ok && checked.value;
}

const SIGN = (key: string) => [
  'sign',
  ...['--name', 'alice', '--key', key, '--train', 'shop/release', '--env', 'prod'],
  ...['--members', 'api=2.4.0,web=5.1.0'],
];

describe('approvals sign --train', () => {
  it('signs the combination its members name, with its digest', async () => {
    const dir = tempDir('train-approval-');
    const { key, pub } = await keys(dir);
    const signed = await run(...SIGN(key), '--digest', membersDigest(MEMBERS));
    expect(signed.code).toBe(0);
    expect(await claimsOf(signed.out.trim(), pub)).toMatchObject({
      train: 'shop/release',
      environment: 'prod',
      members: MEMBERS,
      combinationDigest: membersDigest(MEMBERS),
      decision: 'approve',
    });
  });

  it.each([
    [['--digest', `sha256:${'0'.repeat(64)}`], 'is not that of the combination'],
    [['--revision', '1.0.0'], '--train excludes --revision'],
    [['--pipeline', 'shop/api'], '--train excludes --pipeline'],
    [['--break-glass'], '--train excludes --break-glass'],
  ])('refuses %j with a usage error', async (extra, message) => {
    const dir = tempDir('train-approval-');
    const { key } = await keys(dir);
    const refused = await run(...SIGN(key), ...extra);
    expect(refused.code).toBe(2);
    expect(refused.out).toContain(message);
  });

  it.each(['api', 'api=', 'api=1,api=2'])('refuses --members %s', async (members) => {
    const dir = tempDir('train-approval-');
    const { key } = await keys(dir);
    const args = SIGN(key);
    args[args.length - 1] = members;
    expect((await run(...args)).code).toBe(2);
  });
});

describe('approvals verify of a train approval', () => {
  it('verifies it as each member holds it, and catches a record of another revision', async () => {
    const dir = tempDir('train-approval-');
    const { key, config } = await keys(dir);
    const jws = (await run(...SIGN(key))).out.trim();
    const claims = JSON.parse(Buffer.from(jws.split('.')[1] ?? '', 'base64url').toString('utf8'));
    const record = (revision: string): AuthorizationRecord => ({
      ...{ principal: 'alice', kind: 'human', decision: 'approve', revision },
      time: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
      jti: claims.jti,
      combinationDigest: membersDigest(MEMBERS),
      statement: jws,
    });
    const file = async (name: string, revision: string) => {
      const path = join(dir, `${name}-${revision}.yaml`);
      const status = { environments: { prod: { approvals: [record(revision)] } } };
      await writeFile(path, stringify({ metadata: { namespace: 'shop', name }, status }));
      return path;
    };
    const good = await run('verify', '--config', config, '--from', await file('web', '5.1.0'));
    expect(good.code).toBe(0);
    expect(good.out).toContain('1 signed statement(s) verified, 0 failed');
    const other = await run('verify', '--config', config, '--from', await file('web', '5.0.0'));
    expect(other.code).toBe(1);
    expect(other.out).toContain("the statement's revision differs from the record");
  });
});

describe('approvals sign --train without --members', () => {
  const release = (state: string, members: Record<string, string> = MEMBERS) => ({
    digest: membersDigest(members),
    members,
    state,
    startedAt: '2026-12-07T10:00:00.000Z',
  });
  // The gateway's train door as it answers: prod waits, staging succeeded, a stranger gets 404.
  const TRAIN = {
    namespace: 'shop',
    name: 'release',
    members: ['api', 'web'],
    environments: [
      { name: 'staging', release: release('Succeeded') },
      { name: 'prod', release: release('Waiting') },
      { name: 'broken', release: { ...release('Waiting'), digest: `sha256:${'1'.repeat(64)}` } },
    ],
  };
  let gateway: JsonGateway;

  beforeAll(async () => {
    gateway = await startJsonGateway((req) => {
      const ok =
        req.headers.authorization === 'Bearer reader' && req.url === '/v1/trains/shop/release';
      return ok
        ? { status: 200, body: TRAIN }
        : { status: 404, body: { code: 'NotFound', message: 'No such resource.' } };
    });
  });
  afterAll(() => gateway.close());

  const signArgs = (key: string, env: string) => [
    'sign',
    ...['--name', 'alice', '--key', key, '--train', 'shop/release', '--env', env],
    ...['--gateway', gateway.url],
  ];

  it('signs the combination waiting in the environment, read with the token', async () => {
    const { key, pub } = await keys(tempDir('train-approval-'));
    const signed = await run(...signArgs(key, 'prod'));
    expect(signed.code).toBe(0);
    expect(gateway.seen.at(-1)).toEqual({
      path: '/v1/trains/shop/release',
      authorization: 'Bearer reader',
    });
    expect(await claimsOf(signed.out.trim(), pub)).toMatchObject({
      members: MEMBERS,
      combinationDigest: membersDigest(MEMBERS),
    });
  });

  it.each([
    ['staging', [], 1, "train shop/release's release into staging is Succeeded, not waiting"],
    ['qa', [], 1, 'train shop/release has no release into qa'],
    ['broken', [], 1, 'does not match its digest'],
    ['prod', ['--digest', `sha256:${'0'.repeat(64)}`], 2, 'is not that of the combination'],
    ['prod', ['--token', 'stranger'], 1, 'the gateway answered 404: No such resource.'],
  ])('refuses %s %j (exit %i)', async (env, extra, code, message) => {
    const { key } = await keys(tempDir('train-approval-'));
    const refused = await run(...signArgs(key, env), ...extra);
    expect(refused.code).toBe(code);
    expect(refused.out).toContain(message);
    expect(refused.out).not.toMatch(/^eyJ/m);
  });
});
