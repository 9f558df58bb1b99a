import { generateKeyPairSync } from 'node:crypto';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { createJwtKeys, parseStaticKeys, verifyJwt } from '../../../src/auth/jwt.js';
import type { Checked } from '../../../src/auth/refusal.js';
import type { JwtConfig } from '../../../src/config/gateway-config.js';

const base = {
  issuer: 'https://iss',
  audience: 'aud',
  clockToleranceSeconds: 0,
  maxTokenAgeSeconds: 86_400,
  publicKeys: [],
};

/** `ok` for a verified token, else the refusal's reason. */
function reasonOf(checked: Checked<unknown>): string {
  return checked.ok ? 'ok' : checked.reason;
}

async function token(privateKey: Parameters<SignJWT['sign']>[0], alg: string): Promise<string> {
  return new SignJWT({ sub: 'me' })
    .setProtectedHeader({ alg })
    .setIssuer(base.issuer)
    .setAudience(base.audience)
    .setIssuedAt()
    .setExpirationTime('1m')
    .sign(privateKey);
}

describe('parseStaticKeys', () => {
  it('reads PEM SPKI, a JWK and a JWK Set as public JWKs', async () => {
    const { publicKey } = await generateKeyPair('ES256', { extractable: true });
    const pem = await exportSPKI(publicKey);
    const jwk = { ...(await exportJWK(publicKey)), kid: 'a' };
    expect(parseStaticKeys(pem)[0]?.kty).toBe('EC');
    expect(parseStaticKeys(JSON.stringify(jwk))[0]?.kid).toBe('a');
    expect(
      parseStaticKeys(JSON.stringify({ keys: [jwk, { ...jwk, kid: 'b' }] })).map((k) => k.kid),
    ).toEqual(['a', 'b']);
  });

  it('refuses private and symmetric keys without echoing them', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const jwk = privateKey.export({ format: 'jwk' });
    const attempts = [
      pem,
      JSON.stringify(jwk),
      JSON.stringify({ kty: 'oct', k: 'c2VjcmV0LXZhbHVl' }),
    ];
    for (const text of attempts) {
      let message = '';
      try {
        parseStaticKeys(text);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/JWT static keys must be/);
      expect(message).not.toContain('c2VjcmV0LXZhbHVl');
    }
  });
});

describe('verifyJwt', () => {
  it('tries every static key when none carries a kid', async () => {
    const one = await generateKeyPair('RS256', { extractable: true });
    const two = await generateKeyPair('RS256', { extractable: true });
    const config: JwtConfig = {
      ...base,
      algorithms: ['RS256'],
      publicKeys: [await exportSPKI(one.publicKey), await exportSPKI(two.publicKey)],
    };
    const keys = createJwtKeys(config);
    for (const pair of [two, one]) {
      const checked = await verifyJwt(await token(pair.privateKey, 'RS256'), keys, config);
      expect(checked.ok && checked.value.sub).toBe('me');
    }
  });

  it('rejects algorithms outside the pinned list even with the right key', async () => {
    const pair = await generateKeyPair('PS256', { extractable: true });
    const config: JwtConfig = {
      ...base,
      algorithms: ['RS256'],
      publicKeys: [await exportSPKI(pair.publicKey)],
    };
    expect(
      reasonOf(
        await verifyJwt(await token(pair.privateKey, 'PS256'), createJwtKeys(config), config),
      ),
    ).toBe('BadAlgorithm');
    const allowed = { ...config, algorithms: ['PS256'] };
    expect(
      reasonOf(
        await verifyJwt(await token(pair.privateKey, 'PS256'), createJwtKeys(allowed), allowed),
      ),
    ).toBe('ok');
  });

  it('rejects everything when no key is configured, and garbage tokens', async () => {
    const pair = await generateKeyPair('RS256');
    const config: JwtConfig = { ...base, algorithms: ['RS256'] };
    const keys = createJwtKeys(config);
    expect(reasonOf(await verifyJwt(await token(pair.privateKey, 'RS256'), keys, config))).toBe(
      'UnknownKey',
    );
    expect(reasonOf(await verifyJwt('', keys, config))).toBe('Malformed');
    expect(reasonOf(await verifyJwt('a.b.c', keys, config))).toBe('Malformed');
    expect(reasonOf(await verifyJwt('x'.repeat(20_000), keys, config))).toBe('Malformed');
  });
});

describe('verifyJwt: the reason of a refusal', () => {
  it('tells a wrong audience, a wrong issuer, a key not configured and an unknown kid apart', async () => {
    const own = await generateKeyPair('RS256', { extractable: true });
    const other = await generateKeyPair('RS256', { extractable: true });
    const config: JwtConfig = {
      ...base,
      algorithms: ['RS256'],
      publicKeys: [await exportSPKI(own.publicKey)],
    };
    const keys = createJwtKeys(config);
    const signed = (
      edit: (jwt: SignJWT) => SignJWT,
      { key = own.privateKey, kid }: { key?: typeof own.privateKey; kid?: string } = {},
    ) =>
      edit(
        new SignJWT({ sub: 'me' })
          .setProtectedHeader({ alg: 'RS256', ...(kid === undefined ? {} : { kid }) })
          .setIssuer(base.issuer)
          .setAudience(base.audience)
          .setIssuedAt()
          .setExpirationTime('1m'),
      ).sign(key);
    const cases: [string, string][] = [
      [await signed((j) => j.setAudience('someone-else')), 'WrongAudience'],
      [await signed((j) => j.setIssuer('https://elsewhere')), 'WrongIssuer'],
      [await signed((j) => j, { key: other.privateKey }), 'BadSignature'],
      [await signed((j) => j, { kid: 'nobody' }), 'UnknownKey'],
    ];
    for (const [jwt, reason] of cases)
      expect(reasonOf(await verifyJwt(jwt, keys, config))).toBe(reason);
  });
});

describe('verifyJwt: token lifetimes', () => {
  it('refuses, each for its reason, a token without iat, issued or valid only in the future, too old, valid for too long, expired', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    const config: JwtConfig = {
      ...base,
      algorithms: ['ES256'],
      publicKeys: [await exportSPKI(publicKey)],
      clockToleranceSeconds: 5,
      maxTokenAgeSeconds: 3600,
    };
    const keys = createJwtKeys(config);
    const now = Math.floor(Date.now() / 1000);
    const signed = (edit: (jwt: SignJWT) => SignJWT) =>
      edit(
        new SignJWT({ sub: 'me' })
          .setProtectedHeader({ alg: 'ES256' })
          .setIssuer(base.issuer)
          .setAudience(base.audience),
      ).sign(privateKey);
    const cases: [string, string, string][] = [
      ['fresh', await signed((j) => j.setIssuedAt(now).setExpirationTime(now + 300)), 'ok'],
      ['no iat', await signed((j) => j.setExpirationTime(now + 300)), 'MissingClaim'],
      [
        'iat an hour ahead',
        await signed((j) => j.setIssuedAt(now + 3600).setExpirationTime(now + 4000)),
        'NotYetValid',
      ],
      [
        'iat 2 s ahead (within tolerance)',
        await signed((j) => j.setIssuedAt(now + 2).setExpirationTime(now + 300)),
        'ok',
      ],
      [
        'issued two hours ago',
        await signed((j) => j.setIssuedAt(now - 7200).setExpirationTime(now + 300)),
        'TooOld',
      ],
      [
        'exp in the year 3000',
        await signed((j) => j.setIssuedAt(now).setExpirationTime(32503680000)),
        'LifetimeTooLong',
      ],
      [
        'expired a minute ago',
        await signed((j) => j.setIssuedAt(now - 120).setExpirationTime(now - 60)),
        'Expired',
      ],
      [
        'not before an hour from now',
        await signed((j) =>
          j
            .setIssuedAt(now)
            .setNotBefore(now + 3600)
            .setExpirationTime(now + 300),
        ),
        'NotYetValid',
      ],
    ];
    for (const [what, jwt, reason] of cases) {
      expect([what, reasonOf(await verifyJwt(jwt, keys, config))]).toEqual([what, reason]);
    }
  });
});
