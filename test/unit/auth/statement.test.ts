/**
 * Signed approval statements against every key an approver may have and every algorithm an
 * attacker may pick: only the approver's own key with its one algorithm verifies; everything
 * else, whatever the alg/key combination and however malformed, is undefined and never throws.
 */
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { exportJWK, exportSPKI, generateKeyPair } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  signStatement,
  STATEMENT_TYPE,
  verifyStatement,
  type StatementClaims,
} from '../../../src/auth/statement.js';
import { crossAlgTokens, signingKeys, type SigningKeys } from '../../support/cross-alg.js';

const POLICY = { maxLifetimeSeconds: 900, clockToleranceSeconds: 30 };

function claims(sub: string): StatementClaims {
  const now = Math.floor(Date.now() / 1000);
  return {
    sub,
    pipeline: 'apps/podinfo',
    environment: 'prod',
    revision: '6.6.0',
    decision: 'approve',
    iat: now,
    exp: now + 300,
    jti: randomUUID(),
  };
}

/** What verification did with `statement`: the verified subject, undefined, or what it threw. */
async function outcome(statement: string, publicKeys: readonly string[]): Promise<string> {
  try {
    const verified = await verifyStatement(
      statement,
      { name: 'alice', publicKeys },
      POLICY,
      Date.now(),
    );
    return verified === undefined ? 'refused' : `verified as ${verified.sub}`;
  } catch (error) {
    return `threw ${(error as Error).name}: ${(error as Error).message}`;
  }
}

/** An approver key pair of `alg`'s type, its public key as PEM SPKI and as a JWK. */
async function approverKey(alg: 'EdDSA' | 'ES256' | 'ES384' | 'ES512' | 'RS256' | 'PS256') {
  const pair = await generateKeyPair(alg, { extractable: true });
  const jwk = JSON.stringify(await exportJWK(pair.publicKey));
  return { privateKey: pair.privateKey, pem: await exportSPKI(pair.publicKey), jwk };
}

let keys: SigningKeys;
beforeAll(async () => {
  keys = await signingKeys();
});

describe.each([
  { type: 'Ed25519', alg: 'EdDSA', accepted: true },
  { type: 'P-256', alg: 'ES256', accepted: true },
  // Keys the configuration refuses for approvers; a direct caller may still pass one.
  { type: 'P-384', alg: 'ES384', accepted: false },
  { type: 'P-521', alg: 'ES512', accepted: false },
  { type: 'RSA', alg: 'RS256', accepted: false },
  { type: 'RSA-PSS', alg: 'PS256', accepted: false },
] as const)('an approver with a $type key', ({ alg, accepted }) => {
  let key: Awaited<ReturnType<typeof approverKey>>;
  beforeAll(async () => {
    key = await approverKey(alg);
  });

  it(`${accepted ? 'verifies' : 'refuses'} their own ${alg} statement, as PEM and as JWK`, async () => {
    const own = await signStatement(claims('alice'), key.privateKey, alg as 'EdDSA');
    const expected = accepted ? 'verified as alice' : 'refused';
    expect(await outcome(own, [key.pem])).toBe(expected);
    expect(await outcome(own, [key.jwk])).toBe(expected);
  });

  it('refuses, without throwing, a statement naming them under every other alg and shape', async () => {
    const payload = { ...claims('alice') };
    const tokens = await crossAlgTokens({ kid: 'alice', typ: STATEMENT_TYPE }, payload, keys);
    expect(tokens.length).toBeGreaterThan(70);
    const outcomes = await Promise.all(
      tokens.map(async ([what, token]) => [what, await outcome(token, [key.pem, key.jwk])]),
    );
    expect(outcomes).toEqual(tokens.map(([what]) => [what, 'refused']));
  });
});

describe('one algorithm per key', () => {
  it("refuses alg Ed25519 even from the approver's own Ed25519 key: statements are EdDSA", async () => {
    const key = await approverKey('EdDSA');
    const other = await signStatement(claims('alice'), key.privateKey, 'Ed25519' as 'EdDSA');
    expect(await outcome(other, [key.pem])).toBe('refused');
  });
});

describe('malformed approver keys', () => {
  const { privateKey } = generateKeyPairSync('ed25519');
  const MALFORMED = [
    '',
    'not a key',
    '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----',
    '{}',
    '{"kty":"OKP","crv":"Ed25519","x":"AAAA"}',
    '{"kty":"EC","crv":"P-256","x":"AAAA","y":"AAAA"}',
    '{"kty":"oct","k":"c2VjcmV0"}',
    'null',
    '[]',
    // X25519 is a key-agreement key: it cannot verify anything.
    generateKeyPairSync('x25519').publicKey.export({ format: 'pem', type: 'spki' }).toString(),
  ];

  it('are skipped: the next key still verifies, and alone they verify nothing', async () => {
    const key = await approverKey('EdDSA');
    const own = await signStatement(claims('alice'), key.privateKey, 'EdDSA');
    expect(await outcome(own, [...MALFORMED, key.pem])).toBe('verified as alice');
    for (const text of MALFORMED)
      expect([text, await outcome(own, [text])]).toEqual([text, 'refused']);
    const signedByOther = await signStatement(claims('alice'), privateKey, 'EdDSA');
    expect(await outcome(signedByOther, MALFORMED)).toBe('refused');
  });
});

describe('the decision a statement carries', () => {
  it.each([
    ['approve', true],
    ['reject', true],
    ['break-glass', true],
    ['override', false],
    ['', false],
  ])('%j is %s', async (decision, accepted) => {
    const key = await approverKey('EdDSA');
    const statement = await signStatement(
      { ...claims('alice'), decision: decision as StatementClaims['decision'], comment: 'why' },
      key.privateKey,
      'EdDSA',
    );
    const verified = await verifyStatement(
      statement,
      { name: 'alice', publicKeys: [key.pem] },
      POLICY,
      Date.now(),
    );
    expect(verified?.decision).toBe(accepted ? decision : undefined);
  });
});

describe('the preview digest a statement carries', () => {
  it.each([
    [`sha256:${'0f'.repeat(32)}`, true],
    [`sha256:${'0F'.repeat(32)}`, false],
    [`sha256:${'0f'.repeat(31)}`, false],
    ['sha256:', false],
    [`sha512:${'0f'.repeat(32)}`, false],
  ])('%j is %s', async (previewDigest, accepted) => {
    const key = await approverKey('EdDSA');
    const statement = await signStatement(
      { ...claims('alice'), previewDigest },
      key.privateKey,
      'EdDSA',
    );
    const verified = await verifyStatement(
      statement,
      { name: 'alice', publicKeys: [key.pem] },
      POLICY,
      Date.now(),
    );
    expect(verified === undefined ? 'refused' : verified.previewDigest).toBe(
      accepted ? previewDigest : 'refused',
    );
  });

  it('is absent from a statement signed without one', async () => {
    const key = await approverKey('EdDSA');
    const statement = await signStatement(claims('alice'), key.privateKey, 'EdDSA');
    const verified = await verifyStatement(
      statement,
      { name: 'alice', publicKeys: [key.pem] },
      POLICY,
      Date.now(),
    );
    expect(verified).toBeDefined();
    expect(verified).not.toHaveProperty('previewDigest');
  });
});
