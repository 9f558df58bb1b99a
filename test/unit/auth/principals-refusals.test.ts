/**
 * The authorization doors tell why they refuse: each failure of a signed statement, an SSO
 * token or a CI token is a Refusal with its own reason and only public facts (kid, issuer,
 * subject, the claim at fault), never the credential.
 */
import { randomUUID } from 'node:crypto';
import { createLocalJWKSet, exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { OidcVerifier } from '../../../src/auth/oidc.js';
import { Principals, type AuthorizationTarget } from '../../../src/auth/principals.js';
import type { Checked } from '../../../src/auth/refusal.js';
import { checkStatement } from '../../../src/auth/statement.js';
import type { AuthorizationConfig, OidcIssuerConfig } from '../../../src/config/gateway-config.js';
import { approver, statement, type TestApprover } from '../../support/authorizations.js';
import { closedPort } from '../../support/net.js';

const SSO = 'https://sso.example.com';
const CI = 'https://ci.example.com';
const AUDIENCE = 'promotion-gateway';
const TARGET: AuthorizationTarget = {
  pipeline: { namespace: 'apps', name: 'podinfo' },
  environment: 'prod',
};
const ABOUT_TARGET = { pipeline: 'apps/podinfo', environment: 'prod', revision: '6.6.0' };

let alice: TestApprover;
let mallory: TestApprover;
let issuerKey: CryptoKey;
let principals: Principals;

function issuerConfig(issuer: string): OidcIssuerConfig {
  return {
    issuer,
    audience: AUDIENCE,
    jwksUrl: `${issuer}/jwks`,
    algorithms: ['ES256'],
    maxTokenAgeSeconds: 600,
    clockToleranceSeconds: 0,
  };
}

beforeAll(async () => {
  alice = await approver('alice');
  mallory = await approver('mallory');
  const pair = await generateKeyPair('ES256', { extractable: true });
  issuerKey = pair.privateKey;
  const keys = createLocalJWKSet({ keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'k1' }] });
  const config: AuthorizationConfig = {
    approvers: [{ name: 'alice', publicKeys: [alice.publicKeyPem], oidcSubjects: [], groups: [] }],
    oidc: issuerConfig(SSO),
    groupsClaim: 'groups',
    maxStatementLifetimeSeconds: 900,
    clockToleranceSeconds: 0,
    floors: {},
    legacyEndpoint: false,
    ci: { issuers: [{ ...issuerConfig(CI), name: 'ci' }], policies: [] },
  };
  principals = new Principals(config, {
    sso: new OidcVerifier(issuerConfig(SSO), keys),
    ci: new Map([['ci', new OidcVerifier(issuerConfig(CI), keys)]]),
  });
});

/** A token of `iss` signed by the test issuer's key, with `edit` applied to its claims. */
function token(iss: string, claims: Record<string, unknown> = {}, audience = AUDIENCE) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ sub: 'bob', jti: randomUUID(), iat: now, exp: now + 300, ...claims })
    .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
    .setIssuer(iss)
    .setAudience(audience)
    .sign(issuerKey);
}

function refusalOf(checked: Checked<unknown>): { reason: string; facts: object } {
  if (checked.ok) throw new Error('verified');
  return { reason: checked.reason, facts: checked.facts };
}

describe('approvals by signed statement', () => {
  it('verifies alice statement about this target', async () => {
    const jws = await statement(alice, ABOUT_TARGET);
    expect((await principals.fromStatement(jws, TARGET, Date.now())).ok).toBe(true);
  });

  it.each([
    ['a signer nobody configured', () => statement(mallory, ABOUT_TARGET), 'UnknownApprover'],
    [
      'another environment',
      () => statement(alice, { ...ABOUT_TARGET, environment: 'staging' }),
      'StatementForAnotherTarget',
    ],
    [
      'another pipeline',
      () => statement(alice, { ...ABOUT_TARGET, pipeline: 'apps/other' }),
      'StatementForAnotherTarget',
    ],
    [
      'expired',
      () => statement(alice, { ...ABOUT_TARGET, iat: nowS() - 600, exp: nowS() - 60 }),
      'Expired',
    ],
    [
      'issued in the future',
      () => statement(alice, { ...ABOUT_TARGET, iat: nowS() + 600, exp: nowS() + 900 }),
      'NotYetValid',
    ],
    [
      'valid for longer than allowed',
      () => statement(alice, { ...ABOUT_TARGET, iat: nowS(), exp: nowS() + 3600 }),
      'LifetimeTooLong',
    ],
    ['signed by a key that is not hers', () => forged(), 'BadSignature'],
    [
      'well signed, with claims of the wrong shape',
      () => statement(alice, { ...ABOUT_TARGET, decision: 'maybe' as 'approve' }),
      'Malformed',
    ],
    ['not a JWS', () => Promise.resolve('not-a-statement'), 'Malformed'],
  ])('%s: %s', async (_what, make, reason) => {
    const checked = await principals.fromStatement(await make(), TARGET, Date.now());
    expect(refusalOf(checked).reason).toBe(reason);
  });

  it('names the signer as kid, never the statement', async () => {
    const jws = await statement(mallory, ABOUT_TARGET);
    const refused = refusalOf(await principals.fromStatement(jws, TARGET, Date.now()));
    expect(refused.facts).toEqual({ kid: 'mallory' });
    expect(JSON.stringify(refused)).not.toContain(jws.split('.')[2]);
  });

  it('refuses a statement without jti as MissingJti, one naming someone else as WrongSubject', async () => {
    const now = nowS();
    const noJti = await new SignJWT({ ...ABOUT_TARGET, decision: 'approve' })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'promotion-approval+jwt', kid: 'alice' })
      .setSubject('alice')
      .setIssuedAt(now)
      .setExpirationTime(now + 300)
      .sign(alice.privateKey);
    const signer = { name: 'alice', publicKeys: [alice.publicKeyPem] };
    const policy = { maxLifetimeSeconds: 900, clockToleranceSeconds: 0 };
    expect(refusalOf(await checkStatement(noJti, signer, policy, Date.now())).reason).toBe(
      'MissingJti',
    );
    const other = await statement(alice, { ...ABOUT_TARGET, sub: 'bob' });
    expect(refusalOf(await checkStatement(other, signer, policy, Date.now())).reason).toBe(
      'WrongSubject',
    );
    const wrongType = await new SignJWT({ ...ABOUT_TARGET, decision: 'approve' })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT', kid: 'alice' })
      .setSubject('alice')
      .setJti(randomUUID())
      .setIssuedAt(now)
      .setExpirationTime(now + 300)
      .sign(alice.privateKey);
    expect(refusalOf(await checkStatement(wrongType, signer, policy, Date.now())).reason).toBe(
      'WrongType',
    );
  });
});

describe('SSO and CI tokens', () => {
  it.each([
    ['expired', { iat: nowS() - 400, exp: nowS() - 100 }, AUDIENCE, 'Expired'],
    ['for another audience', {}, 'someone-else', 'WrongAudience'],
    ['without jti', { jti: undefined }, AUDIENCE, 'MissingJti'],
    ['too old', { iat: nowS() - 3600, exp: nowS() + 60 }, AUDIENCE, 'TooOld'],
  ])('an SSO token %s is refused as %s', async (_what, claims, audience, reason) => {
    const sso = await token(SSO, claims, audience);
    const refused = refusalOf(await principals.fromSso(sso, Date.now()));
    expect(refused.reason).toBe(reason);
    // The issuer, kid and subject are public; the token is not.
    expect(refused.facts).toMatchObject({ issuer: SSO, kid: 'k1', subject: 'bob' });
    expect(JSON.stringify(refused)).not.toContain(sso.split('.')[2]);
  });

  it('refuses an SSO token of another issuer as WrongIssuer', async () => {
    const checked = await principals.fromSso(await token(CI), Date.now());
    expect(refusalOf(checked).reason).toBe('WrongIssuer');
  });

  it('refuses a CI token of an issuer not configured as UnknownIssuer, naming it', async () => {
    const checked = await principals.fromCi(await token('https://evil'), TARGET, Date.now());
    expect(refusalOf(checked)).toEqual({
      reason: 'UnknownIssuer',
      facts: { issuer: 'https://evil' },
    });
    expect(refusalOf(await principals.fromCi('garbage', TARGET, Date.now())).reason).toBe(
      'Malformed',
    );
  });

  it('refuses as KeysUnavailable when the issuer JWKS cannot be fetched', async () => {
    const port = await closedPort();
    const unreachable = new OidcVerifier({
      ...issuerConfig(SSO),
      jwksUrl: `http://127.0.0.1:${String(port)}/jwks`,
    });
    expect(refusalOf(await unreachable.verify(await token(SSO), Date.now())).reason).toBe(
      'KeysUnavailable',
    );
  });

  it('refuses SSO when no SSO issuer is configured as NotConfigured', async () => {
    const none = new Principals({
      approvers: [],
      groupsClaim: 'groups',
      maxStatementLifetimeSeconds: 900,
      clockToleranceSeconds: 0,
      floors: {},
      legacyEndpoint: false,
      ci: { issuers: [], policies: [] },
    });
    expect(refusalOf(await none.fromSso(await token(SSO), Date.now())).reason).toBe(
      'NotConfigured',
    );
  });
});

function nowS(): number {
  return Math.floor(Date.now() / 1000);
}

/** A statement naming alice, signed by mallory's key. */
async function forged(): Promise<string> {
  const now = nowS();
  return new SignJWT({ ...ABOUT_TARGET, decision: 'approve' })
    .setProtectedHeader({ alg: 'EdDSA', typ: 'promotion-approval+jwt', kid: 'alice' })
    .setSubject('alice')
    .setJti(randomUUID())
    .setIssuedAt(now)
    .setExpirationTime(now + 300)
    .sign(mallory.privateKey);
}
