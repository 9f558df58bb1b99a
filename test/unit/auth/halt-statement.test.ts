/**
 * Signed halt statements: a halt (of one Pipeline or of a selector's) and a lift, signed by an
 * approver, verify into the approver's principal and the claims; an approval statement never
 * passes for a halt nor a halt for an approval (each kind has its own `typ`); a statement of the
 * wrong shape, by an unknown signer, or signed by another key is refused with its reason.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  checkHaltStatement,
  haltClaimsOf,
  haltClaimsProblem,
  signHaltStatement,
  type HaltStatementClaims,
} from '../../../src/auth/halt-statement.js';
import { checkStatement } from '../../../src/auth/statement.js';
import { approver, statement, type TestApprover } from '../../support/authorizations.js';

const NOW = Date.UTC(2026, 10, 21, 10, 0, 0);
const POLICY = { maxStatementLifetimeSeconds: 600, clockToleranceSeconds: 5 };

async function setup() {
  const alice = await approver('alice', ['sre']);
  const mallory = await approver('alice');
  const config = {
    ...POLICY,
    approvers: [
      { name: 'alice', publicKeys: [alice.publicKeyPem], oidcSubjects: [], groups: ['sre'] },
    ],
  };
  return { alice, mallory, config };
}

function sign(who: TestApprover, claims: Partial<HaltStatementClaims>): Promise<string> {
  const iat = Math.floor(NOW / 1000);
  const base = { sub: who.name, iat, exp: iat + 300, jti: randomUUID(), action: 'halt' as const };
  return signHaltStatement({ ...base, ...claims }, who.privateKey, 'EdDSA');
}

describe('checkHaltStatement', () => {
  it('verifies a halt by selector into the approver and the claims', async () => {
    const { alice, config } = await setup();
    const text = await sign(alice, {
      selector: 'team=payments',
      namespace: 'apps',
      environment: 'prod',
      reason: 'incident 42',
      haltExpiresAt: '2026-11-22T10:00:00Z',
    });
    const checked = await checkHaltStatement(config, text, NOW);
    if (!checked.ok) throw new Error(checked.reason);
    expect(checked.value.identity).toMatchObject({
      kind: 'statement',
      subject: 'alice',
      principal: {
        name: 'alice',
        kind: 'human',
        groups: ['sre'],
        expiresAt: (NOW / 1000 + 300) * 1000,
      },
    });
    expect(checked.value.claims).toMatchObject({
      action: 'halt',
      selector: 'team=payments',
      namespace: 'apps',
      environment: 'prod',
      reason: 'incident 42',
      haltExpiresAt: '2026-11-22T10:00:00Z',
    });
  });

  it('verifies a lift by id, for every Pipeline or one', async () => {
    const { alice, config } = await setup();
    for (const extra of [{}, { pipeline: 'apps/podinfo' }]) {
      const text = await sign(alice, { action: 'lift', haltId: 'a-b-c', ...extra });
      expect(await checkHaltStatement(config, text, NOW)).toMatchObject({
        ok: true,
        value: { claims: { action: 'lift', haltId: 'a-b-c', ...extra } },
      });
    }
  });

  it.each([
    ['both pipeline and selector', { pipeline: 'a/b', selector: 'x=y', reason: 'r' }],
    ['neither pipeline nor selector', { reason: 'r' }],
    ['a halt without a reason', { pipeline: 'a/b' }],
    ['a namespace without a selector', { pipeline: 'a/b', namespace: 'a', reason: 'r' }],
    ['a halt naming a halt id', { pipeline: 'a/b', reason: 'r', haltId: 'x' }],
    ['a lift without a halt id', { action: 'lift' as const }],
    ['a lift with a selector', { action: 'lift' as const, haltId: 'x', selector: 'a=b' }],
    ['a lift id of other characters', { action: 'lift' as const, haltId: 'x/../y' }],
    ['another action', { action: 'approve' as unknown as 'halt', pipeline: 'a/b', reason: 'r' }],
    ['an empty reason', { pipeline: 'a/b', reason: '' }],
  ])('refuses %s', async (_name, claims) => {
    const { alice, config } = await setup();
    const base = { sub: 'alice', iat: 1, exp: 2, jti: 'j', action: 'halt' };
    expect(haltClaimsOf({ ...base, ...claims })).toBeUndefined();
    // Signed, it is refused (the log's reason is the signature's: see statement.ts progress()).
    const checked = await checkHaltStatement(config, await sign(alice, claims), NOW);
    expect(checked.ok).toBe(false);
  });

  it('refuses an approval statement, and the approval door refuses a halt statement', async () => {
    const { alice, config } = await setup();
    const approval = await statement(alice, {
      pipeline: 'a/b',
      environment: 'prod',
      revision: '1',
    });
    expect(await checkHaltStatement(config, approval, Date.now())).toMatchObject({
      ok: false,
      reason: 'WrongType',
    });
    const halt = await sign(alice, { pipeline: 'a/b', reason: 'r' });
    const signer = { name: 'alice', publicKeys: [alice.publicKeyPem] };
    const policy = { maxLifetimeSeconds: 600, clockToleranceSeconds: 5 };
    expect(await checkStatement(halt, signer, policy, NOW)).toMatchObject({
      ok: false,
      reason: 'WrongType',
    });
  });

  it('refuses an unknown signer, another key, an expired or over-long statement', async () => {
    const { alice, mallory, config } = await setup();
    const claims = { pipeline: 'a/b', reason: 'r' };
    const bob = await approver('bob');
    expect(await checkHaltStatement(config, await sign(bob, claims), NOW)).toMatchObject({
      reason: 'UnknownApprover',
    });
    expect(await checkHaltStatement(config, await sign(mallory, claims), NOW)).toMatchObject({
      reason: 'BadSignature',
    });
    const text = await sign(alice, claims);
    expect(await checkHaltStatement(config, text, NOW + 400_000)).toMatchObject({
      reason: 'Expired',
    });
    // Past 4096 characters a statement is refused before any key is tried (else BadSignature).
    const padded = `${text}${'A'.repeat(4097 - text.length)}`;
    expect(await checkHaltStatement(config, padded, NOW)).toMatchObject({ reason: 'Malformed' });
  });
});

describe('haltClaimsProblem', () => {
  const claims = (extra: Partial<HaltStatementClaims>): HaltStatementClaims => ({
    ...{ sub: 'alice', iat: 1, exp: 2, jti: 'j', action: 'halt', pipeline: 'apps/podinfo' },
    reason: 'incident 42',
    ...extra,
  });

  it('asks of the claims what the JSON doors ask of a body', () => {
    expect(haltClaimsProblem(claims({ haltExpiresAt: '2096-02-29T00:00:00Z' }))).toBeUndefined();
    expect(haltClaimsProblem(claims({ haltExpiresAt: '2099-02-30T00:00:00Z' }))).toBe(
      'haltExpiresAt must be an RFC 3339 date-time on a calendar date that exists, e.g. 2026-11-26T08:00:00Z',
    );
    expect(haltClaimsProblem(claims({ reason: 'all clear\u001b[2J' }))).toBe(
      'reason must not contain control or invisible formatting characters (U+001B)',
    );
    expect(haltClaimsProblem(claims({ reason: 'x \u2067y\u2069' }))).toMatch(/\(U\+2067\)$/);
  });
});
