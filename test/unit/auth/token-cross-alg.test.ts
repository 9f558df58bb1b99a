/**
 * The bearer-token doors against every alg/key combination: CI and SSO tokens (OidcVerifier,
 * keys from the issuer's JWKS) and the API's JWTs (verifyJwt, static keys). For each key type
 * the configuration allows, a token naming that key (or none) under any other algorithm or
 * malformed is refused, never a rejection; so is one naming a key the issuer published
 * broken. The key's own token still verifies.
 */
import { randomUUID } from 'node:crypto';
import {
  createLocalJWKSet,
  exportJWK,
  generateKeyPair,
  SignJWT,
  type CryptoKey,
  type JWK,
} from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { createJwtKeys, verifyJwt } from '../../../src/auth/jwt.js';
import { OidcVerifier } from '../../../src/auth/oidc.js';
import type { Checked } from '../../../src/auth/refusal.js';
import type { JwtConfig } from '../../../src/config/gateway-config.js';
import {
  CONFIGURABLE_ALGORITHMS,
  crossAlgTokens,
  signingKeys,
  type SigningKeys,
} from '../../support/cross-alg.js';

const ISSUER = 'https://issuer.example.com';
const AUDIENCE = 'promotion-gateway';
const CONFIGURABLE = CONFIGURABLE_ALGORITHMS;
/** One key of each type, by kid, with the algorithm its own tokens use. */
const KEY_TYPES = {
  rsa: 'RS256',
  p256: 'ES256',
  p384: 'ES384',
  p521: 'ES512',
  ed: 'EdDSA',
} as const;

let attacker: SigningKeys;
const own = new Map<string, { privateKey: CryptoKey; jwk: JWK }>();

beforeAll(async () => {
  attacker = await signingKeys();
  for (const [kid, alg] of Object.entries(KEY_TYPES)) {
    const pair = await generateKeyPair(alg, { extractable: true });
    own.set(kid, {
      privateKey: pair.privateKey,
      jwk: { ...(await exportJWK(pair.publicKey)), kid },
    });
  }
});

function payload(): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  return {
    iss: ISSUER,
    aud: AUDIENCE,
    sub: 'repo:acme/podinfo',
    jti: randomUUID(),
    iat: now,
    exp: now + 300,
  };
}

/** What `verify` made of `token`: verified, refused, or what it threw. */
async function outcome(verify: () => Promise<Checked<unknown>>): Promise<string> {
  try {
    return (await verify()).ok ? 'verified' : 'refused';
  } catch (error) {
    return `threw ${(error as Error).name}: ${(error as Error).message}`;
  }
}

/** The key's own token, signed with its own algorithm. */
function ownToken(kid: string, alg: string): Promise<string> {
  const key = own.get(kid);
  if (key === undefined) throw new Error(`no key ${kid}`);
  return new SignJWT(payload()).setProtectedHeader({ alg, kid }).sign(key.privateKey);
}

/** Asserts that every cross-alg token with `header` is refused by `verify`; answers how many. */
async function expectAllRefused(
  header: Record<string, unknown>,
  verify: (token: string) => Promise<Checked<unknown>>,
): Promise<number> {
  const tokens = await crossAlgTokens(header, payload(), attacker);
  const outcomes = await Promise.all(
    tokens.map(async ([what, token]) => [what, await outcome(() => verify(token))]),
  );
  expect(outcomes).toEqual(tokens.map(([what]) => [what, 'refused']));
  return tokens.length;
}

describe.each([
  { jwks: 'keys without alg', withAlg: false },
  { jwks: 'keys with their alg', withAlg: true },
])('OidcVerifier (CI and SSO tokens), a JWKS of $jwks', ({ withAlg }) => {
  let verifier: OidcVerifier;
  beforeAll(() => {
    const keys: JWK[] = Object.entries(KEY_TYPES).map(([kid, alg]) => ({
      ...own.get(kid)?.jwk,
      ...(withAlg ? { alg } : {}),
    }));
    const ec = keys.find((k) => k.kid === 'p256');
    const ed = keys.find((k) => k.kid === 'ed');
    const rsa = keys.find((k) => k.kid === 'rsa');
    // Keys an issuer published broken: points not on the curve, a 17-bit modulus.
    keys.push({ ...ec, kid: 'broken-ec', x: 'AAAA' }, { ...ed, kid: 'broken-ed', x: 'AAAA' });
    keys.push({ ...rsa, kid: 'broken-rsa', n: 'AQAB' });
    const config = {
      issuer: ISSUER,
      audience: AUDIENCE,
      jwksUrl: `${ISSUER}/jwks`,
      algorithms: CONFIGURABLE,
      maxTokenAgeSeconds: 600,
      clockToleranceSeconds: 30,
    };
    verifier = new OidcVerifier(config, createLocalJWKSet({ keys }));
  });

  it.each(Object.entries(KEY_TYPES))('verifies the own token of key %s (%s)', async (kid, alg) => {
    const token = await ownToken(kid, alg);
    expect(await outcome(() => verifier.verify(token, Date.now()))).toBe('verified');
  });

  it.each([...Object.keys(KEY_TYPES), 'broken-ec', 'broken-ed', 'broken-rsa', 'unknown'])(
    'refuses, without throwing, every other token naming kid %s',
    async (kid) => {
      const count = await expectAllRefused({ kid, typ: 'JWT' }, (token) =>
        verifier.verify(token, Date.now()),
      );
      expect(count).toBeGreaterThan(70);
    },
  );
});

describe('verifyJwt (the API JWTs), static keys of every type', () => {
  let config: JwtConfig;
  let keys: ReturnType<typeof createJwtKeys>;
  beforeAll(() => {
    const publicKeys = [...own.values()].map((k) => JSON.stringify(k.jwk));
    config = {
      issuer: ISSUER,
      audience: AUDIENCE,
      algorithms: CONFIGURABLE,
      publicKeys,
      clockToleranceSeconds: 30,
      maxTokenAgeSeconds: 600,
    };
    keys = createJwtKeys(config);
  });

  it.each(Object.entries(KEY_TYPES))('verifies the own token of key %s (%s)', async (kid, alg) => {
    expect(await outcome(async () => verifyJwt(await ownToken(kid, alg), keys, config))).toBe(
      'verified',
    );
  });

  // Without a kid, every key of the token's key type is a candidate and each is tried.
  it.each([...Object.keys(KEY_TYPES), 'unknown', undefined])(
    'refuses, without throwing, every other token naming kid %s',
    async (kid) => {
      const header = kid === undefined ? {} : { kid };
      expect(
        await expectAllRefused(header, (token) => verifyJwt(token, keys, config)),
      ).toBeGreaterThan(70);
    },
  );
});
