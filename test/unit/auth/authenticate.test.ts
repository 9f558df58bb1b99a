import { exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  authenticateBearer,
  authenticateClusterEvent,
  authenticateLegacy,
  bearerToken,
  coversPipeline,
} from '../../../src/auth/authenticate.js';
import type { AuthSettings } from '../../../src/auth/authenticate.js';
import { signBody } from '../../../src/auth/hmac.js';
import { createJwtKeys } from '../../../src/auth/jwt.js';
import type { Identity } from '../../../src/auth/identity.js';
import type { JwtConfig } from '../../../src/config/gateway-config.js';

const body = Buffer.from('{"involvedObject":{}}');
const devKey = Buffer.from('dev-key');

async function settingsWithJwt(): Promise<{
  settings: AuthSettings;
  sign: (claims: object) => Promise<string>;
}> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwt: JwtConfig = {
    issuer: 'iss',
    audience: 'aud',
    algorithms: ['RS256'],
    publicKeys: [await exportSPKI(publicKey)],
    clockToleranceSeconds: 0,
    maxTokenAgeSeconds: 86_400,
  };
  return {
    settings: {
      clusters: [
        { name: 'dev', hmacKeys: [devKey], jwtSubjects: ['ci', 'flux-dev'] },
        { name: 'prod', hmacKeys: [], jwtSubjects: ['ci'] },
      ],
      jwt,
      jwtKeys: createJwtKeys(jwt),
    },
    sign: (claims) =>
      new SignJWT({ ...claims })
        .setProtectedHeader({ alg: 'RS256' })
        .setIssuer('iss')
        .setAudience('aud')
        .setIssuedAt()
        .setExpirationTime('1m')
        .sign(privateKey),
  };
}

describe('bearerToken', () => {
  it('extracts only well-formed Bearer tokens', () => {
    expect(bearerToken({ authorization: 'Bearer a.b.c' })).toBe('a.b.c');
    expect(bearerToken({ authorization: 'bearer a.b.c' })).toBe('a.b.c');
    expect(bearerToken({ authorization: 'token' })).toBeUndefined();
    expect(bearerToken({ authorization: 'Basic dXNlcjpwYXNz' })).toBeUndefined();
    expect(bearerToken({ authorization: 'Bearer a b' })).toBeUndefined();
    expect(bearerToken({})).toBeUndefined();
  });
});

describe('authenticateClusterEvent', () => {
  it('binds HMAC identities to the cluster whose key signed', async () => {
    const { settings } = await settingsWithJwt();
    const headers = { 'x-signature': signBody(body, devKey) };
    expect(await authenticateClusterEvent(headers, body, 'dev', settings)).toEqual({
      kind: 'hmac',
      subject: 'cluster:dev',
      scopes: { clusters: ['dev'], pipelines: [] },
    });
    expect(await authenticateClusterEvent(headers, body, 'prod', settings)).toBeUndefined();
    expect(await authenticateClusterEvent(headers, body, 'ghost', settings)).toBeUndefined();
  });

  it('prefers X-Signature over Authorization (Flux may send both)', async () => {
    const { settings, sign } = await settingsWithJwt();
    const token = await sign({ sub: 'flux-dev' });
    const headers = { 'x-signature': 'sha256=00', authorization: `Bearer ${token}` };
    expect(await authenticateClusterEvent(headers, body, 'dev', settings)).toBeUndefined();
  });

  it('accepts a JWT only for clusters listing its subject', async () => {
    const { settings, sign } = await settingsWithJwt();
    const headers = { authorization: `Bearer ${await sign({ sub: 'flux-dev' })}` };
    expect((await authenticateClusterEvent(headers, body, 'dev', settings))?.subject).toBe(
      'flux-dev',
    );
    expect(await authenticateClusterEvent(headers, body, 'prod', settings)).toBeUndefined();
    const ci = { authorization: `Bearer ${await sign({ sub: 'ci' })}` };
    expect((await authenticateClusterEvent(ci, body, 'prod', settings))?.scopes.clusters).toEqual([
      'dev',
      'prod',
    ]);
  });

  it('rejects JWTs when no JWT configuration exists', async () => {
    const { settings, sign } = await settingsWithJwt();
    const headers = { authorization: `Bearer ${await sign({ sub: 'flux-dev' })}` };
    const without = { ...settings, jwt: undefined, jwtKeys: undefined };
    expect(await authenticateClusterEvent(headers, body, 'dev', without)).toBeUndefined();
  });
});

describe('authenticateBearer and coversPipeline', () => {
  it('reads the pipelines claim, ignoring malformed entries', async () => {
    const { settings, sign } = await settingsWithJwt();
    const token = await sign({ sub: 'reader', pipelines: ['apps/*', 7, 'x'.repeat(400)] });
    const identity = await authenticateBearer({ authorization: `Bearer ${token}` }, settings);
    expect(identity?.scopes.pipelines).toEqual(['apps/*']);
    const notArray = await authenticateBearer(
      { authorization: `Bearer ${await sign({ sub: 'r', pipelines: '*' })}` },
      settings,
    );
    expect(notArray?.scopes.pipelines).toEqual([]);
  });

  it('matches ns/name, ns/* and * only', () => {
    const who = (pipelines: string[]): Identity => ({
      kind: 'jwt',
      subject: 's',
      scopes: { clusters: [], pipelines },
    });
    expect(coversPipeline(who(['apps/podinfo']), 'apps', 'podinfo')).toBe(true);
    expect(coversPipeline(who(['apps/*']), 'apps', 'podinfo')).toBe(true);
    expect(coversPipeline(who(['*']), 'apps', 'podinfo')).toBe(true);
    expect(
      coversPipeline(who(['apps/pod*', 'app/*', '*/podinfo', 'apps']), 'apps', 'podinfo'),
    ).toBe(false);
    expect(coversPipeline(who([]), 'apps', 'podinfo')).toBe(false);
  });
});

describe('authenticateLegacy', () => {
  it('requires a key and a matching signature', () => {
    const ref = { namespace: 'ns', name: 'p' };
    const headers = { 'x-signature': signBody(body, devKey) };
    expect(authenticateLegacy(headers, body, ref, devKey)?.scopes.pipelines).toEqual(['ns/p']);
    expect(authenticateLegacy(headers, body, ref, undefined)).toBeUndefined();
    expect(authenticateLegacy({}, body, ref, devKey)).toBeUndefined();
  });
});
