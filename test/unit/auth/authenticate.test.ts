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
import type { Checked } from '../../../src/auth/refusal.js';
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

/** `ok` for an Identity, else the refusal's reason (after its diagnostic, as the ingress runs it). */
function reasonOf(checked: Checked<Identity>): string {
  if (checked.ok) return 'ok';
  return (checked.diagnose?.() ?? checked).reason;
}

function identityOf(checked: Checked<Identity>): Identity | undefined {
  return checked.ok ? checked.value : undefined;
}

describe('authenticateClusterEvent', () => {
  it('binds HMAC identities to the cluster whose key signed', async () => {
    const { settings } = await settingsWithJwt();
    const headers = { 'x-signature': signBody(body, devKey) };
    expect(identityOf(await authenticateClusterEvent(headers, body, 'dev', settings))).toEqual({
      kind: 'hmac',
      subject: 'cluster:dev',
      scopes: { clusters: ['dev'], pipelines: [] },
    });
    expect(
      identityOf(await authenticateClusterEvent(headers, body, 'prod', settings)),
    ).toBeUndefined();
    expect(
      identityOf(await authenticateClusterEvent(headers, body, 'ghost', settings)),
    ).toBeUndefined();
  });

  it('prefers X-Signature over Authorization (Flux may send both)', async () => {
    const { settings, sign } = await settingsWithJwt();
    const token = await sign({ sub: 'flux-dev' });
    const headers = { 'x-signature': 'sha256=00', authorization: `Bearer ${token}` };
    expect(reasonOf(await authenticateClusterEvent(headers, body, 'dev', settings))).toBe(
      'Malformed',
    );
  });

  it('accepts a JWT only for clusters listing its subject', async () => {
    const { settings, sign } = await settingsWithJwt();
    const headers = { authorization: `Bearer ${await sign({ sub: 'flux-dev' })}` };
    expect(
      identityOf(await authenticateClusterEvent(headers, body, 'dev', settings))?.subject,
    ).toBe('flux-dev');
    expect(reasonOf(await authenticateClusterEvent(headers, body, 'prod', settings))).toBe(
      'SubjectNotBound',
    );
    const ci = { authorization: `Bearer ${await sign({ sub: 'ci' })}` };
    expect(
      identityOf(await authenticateClusterEvent(ci, body, 'prod', settings))?.scopes.clusters,
    ).toEqual(['dev', 'prod']);
  });

  it('refuses JWTs when no JWT configuration exists', async () => {
    const { settings, sign } = await settingsWithJwt();
    const headers = { authorization: `Bearer ${await sign({ sub: 'flux-dev' })}` };
    const without = { ...settings, jwt: undefined, jwtKeys: undefined };
    expect(reasonOf(await authenticateClusterEvent(headers, body, 'dev', without))).toBe(
      'NotConfigured',
    );
  });
});

describe('authenticateClusterEvent: the reason of each refusal', () => {
  const prodKey = Buffer.from('prod-key');
  const settings: AuthSettings = {
    clusters: [
      { name: 'dev', hmacKeys: [devKey], jwtSubjects: [] },
      { name: 'staging', hmacKeys: [], jwtSubjects: ['flux-staging'] },
      { name: 'prod', hmacKeys: [Buffer.from('prod-old'), prodKey], jwtSubjects: [] },
    ],
    jwt: undefined,
    jwtKeys: undefined,
  };
  const refusal = async (headers: Record<string, string>, cluster: string) => {
    const checked = await authenticateClusterEvent(headers, body, cluster, settings);
    if (checked.ok) throw new Error('accepted');
    return checked.diagnose?.() ?? checked;
  };

  it.each([
    ['no credential at all', {}, 'dev', 'MissingSignature'],
    ['a header that is not <alg>=<hex>', { 'x-signature': 'sha256:abc' }, 'dev', 'Malformed'],
    ['a digest of the wrong length', { 'x-signature': 'sha256=abcd' }, 'dev', 'Malformed'],
    ['an unknown algorithm', { 'x-signature': `md5=${'0'.repeat(32)}` }, 'dev', 'Malformed'],
    ['a wrong key', { 'x-signature': signBody(body, Buffer.from('nope')) }, 'dev', 'BadSignature'],
    [
      'a cluster nobody configured',
      { 'x-signature': signBody(body, devKey) },
      'ghost',
      'UnknownCluster',
    ],
    ['a cluster without HMAC keys', { 'x-signature': signBody(body, devKey) }, 'staging', 'NoKey'],
    [
      "another cluster's key",
      { 'x-signature': signBody(body, prodKey) },
      'dev',
      'KeyOfAnotherCluster',
    ],
    ['a JWT door not configured', { authorization: 'Bearer a.b.c' }, 'dev', 'NotConfigured'],
  ])('%s: %s', async (_what, headers: Record<string, string>, cluster, reason) => {
    expect((await refusal(headers, cluster)).reason).toBe(reason);
  });

  it('names the URL cluster and the owner of the key, never the key or the signature', async () => {
    const signature = signBody(body, prodKey);
    const found = await refusal({ 'x-signature': signature }, 'dev');
    expect(found.facts).toEqual({ cluster: 'dev', keyOf: 'prod' });
    const unknown = await refusal({ 'x-signature': signature }, 'ghost');
    expect([unknown.reason, unknown.facts]).toEqual([
      'UnknownCluster',
      { cluster: 'ghost', keyOf: 'prod' },
    ]);
    const text = JSON.stringify([found, unknown]);
    expect(text).not.toContain(signature.slice(7));
    expect(text).not.toContain('prod-key');
  });

  it('keeps the real check free of the diagnostic: it runs only when asked for', async () => {
    const checked = await authenticateClusterEvent(
      { 'x-signature': signBody(body, prodKey) },
      body,
      'dev',
      settings,
    );
    expect(checked.ok ? 'ok' : checked.reason).toBe('BadSignature');
    expect(checked.ok ? undefined : typeof checked.diagnose).toBe('function');
    // Nothing to diagnose where the signature was never well-formed.
    const malformed = await authenticateClusterEvent({}, body, 'dev', settings);
    expect(malformed.ok ? 'ok' : malformed.diagnose).toBeUndefined();
  });
});

describe('authenticateBearer and coversPipeline', () => {
  it('reads the pipelines claim, ignoring malformed entries', async () => {
    const { settings, sign } = await settingsWithJwt();
    const token = await sign({ sub: 'reader', pipelines: ['apps/*', 7, 'x'.repeat(400)] });
    const identity = identityOf(
      await authenticateBearer({ authorization: `Bearer ${token}` }, settings),
    );
    expect(identity?.scopes.pipelines).toEqual(['apps/*']);
    const notArray = identityOf(
      await authenticateBearer(
        { authorization: `Bearer ${await sign({ sub: 'r', pipelines: '*' })}` },
        settings,
      ),
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

  it('refuses a missing token as MissingToken, an unconfigured door as NotConfigured', async () => {
    const { settings, sign } = await settingsWithJwt();
    expect(reasonOf(await authenticateBearer({}, settings))).toBe('MissingToken');
    expect(reasonOf(await authenticateBearer({ authorization: 'Basic dXNlcg==' }, settings))).toBe(
      'MissingToken',
    );
    const token = await sign({ sub: 'reader' });
    const without = { ...settings, jwt: undefined, jwtKeys: undefined };
    expect(reasonOf(await authenticateBearer({ authorization: `Bearer ${token}` }, without))).toBe(
      'NotConfigured',
    );
  });
});

describe('authenticateLegacy', () => {
  it('requires a key and a matching signature, and tells why not', () => {
    const ref = { namespace: 'ns', name: 'p' };
    const headers = { 'x-signature': signBody(body, devKey) };
    const legacy = (h: Record<string, string>, key: Buffer | undefined) =>
      authenticateLegacy(h, body, ref, key);
    expect(identityOf(legacy(headers, devKey))?.scopes.pipelines).toEqual(['ns/p']);
    expect(reasonOf(legacy(headers, undefined))).toBe('NoKey');
    expect(reasonOf(legacy({}, devKey))).toBe('MissingSignature');
    expect(reasonOf(legacy({}, undefined))).toBe('MissingSignature');
    expect(reasonOf(legacy({ 'x-signature': 'sha256=zz' }, devKey))).toBe('Malformed');
    const wrong = legacy({ 'x-signature': signBody(body, Buffer.from('other')) }, devKey);
    expect(wrong.ok ? undefined : [wrong.reason, wrong.facts]).toEqual([
      'BadSignature',
      { pipeline: 'ns/p' },
    ]);
  });
});
