import { generateKeyPairSync } from 'node:crypto';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { createJwtKeys, parseStaticKeys, verifyJwt } from '../../../src/auth/jwt.js';
import type { JwtConfig } from '../../../src/config/gateway-config.js';

const base = {
  issuer: 'https://iss',
  audience: 'aud',
  clockToleranceSeconds: 0,
  maxTokenAgeSeconds: 86_400,
  publicKeys: [],
};

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
    expect((await verifyJwt(await token(two.privateKey, 'RS256'), keys, config))?.sub).toBe('me');
    expect((await verifyJwt(await token(one.privateKey, 'RS256'), keys, config))?.sub).toBe('me');
  });

  it('rejects algorithms outside the pinned list even with the right key', async () => {
    const pair = await generateKeyPair('PS256', { extractable: true });
    const config: JwtConfig = {
      ...base,
      algorithms: ['RS256'],
      publicKeys: [await exportSPKI(pair.publicKey)],
    };
    expect(
      await verifyJwt(await token(pair.privateKey, 'PS256'), createJwtKeys(config), config),
    ).toBeUndefined();
    const allowed = { ...config, algorithms: ['PS256'] };
    expect(
      await verifyJwt(await token(pair.privateKey, 'PS256'), createJwtKeys(allowed), allowed),
    ).toBeDefined();
  });

  it('rejects everything when no key is configured, and garbage tokens', async () => {
    const pair = await generateKeyPair('RS256');
    const config: JwtConfig = { ...base, algorithms: ['RS256'] };
    const keys = createJwtKeys(config);
    expect(await verifyJwt(await token(pair.privateKey, 'RS256'), keys, config)).toBeUndefined();
    expect(await verifyJwt('', keys, config)).toBeUndefined();
    expect(await verifyJwt('a.b.c', keys, config)).toBeUndefined();
    expect(await verifyJwt('x'.repeat(20_000), keys, config)).toBeUndefined();
  });
});

describe('verifyJwt: token lifetimes', () => {
  it('refuses a token without iat, one issued in the future, one too old, one valid for too long', async () => {
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
    const cases: [string, string, boolean][] = [
      ['fresh', await signed((j) => j.setIssuedAt(now).setExpirationTime(now + 300)), true],
      ['no iat', await signed((j) => j.setExpirationTime(now + 300)), false],
      [
        'iat an hour ahead',
        await signed((j) => j.setIssuedAt(now + 3600).setExpirationTime(now + 4000)),
        false,
      ],
      [
        'iat 2 s ahead (within tolerance)',
        await signed((j) => j.setIssuedAt(now + 2).setExpirationTime(now + 300)),
        true,
      ],
      [
        'issued two hours ago',
        await signed((j) => j.setIssuedAt(now - 7200).setExpirationTime(now + 300)),
        false,
      ],
      [
        'exp in the year 3000',
        await signed((j) => j.setIssuedAt(now).setExpirationTime(32503680000)),
        false,
      ],
    ];
    for (const [what, jwt, ok] of cases) {
      expect([what, (await verifyJwt(jwt, keys, config)) !== undefined]).toEqual([what, ok]);
    }
  });
});
