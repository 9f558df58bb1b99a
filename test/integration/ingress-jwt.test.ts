import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fixture,
  jwtFixture,
  post,
  startGateway,
  testConfig,
  AUDIENCE,
  ISSUER,
} from '../support/ingress-harness.js';
import type { Gateway, JwtFixture } from '../support/ingress-harness.js';

const UNAUTHENTICATED = { code: 'Unauthenticated', message: 'Authentication failed.' };
const body = fixture('03-helmrelease-upgrade-succeeded.forwarded.json');

function b64url(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

describe('POST /v1/events/:cluster (bearer JWT, static PEM key)', () => {
  let gw: Gateway;
  let keys: JwtFixture;

  beforeAll(async () => {
    keys = await jwtFixture();
    gw = await startGateway({ config: testConfig(keys.publicPem) });
  });
  afterAll(async () => {
    await gw.close();
  });

  async function send(token: string, cluster = 'prod'): Promise<Response> {
    return post(`${gw.url}/v1/events/${cluster}`, body, { authorization: `Bearer ${token}` });
  }

  it('accepts a valid RS256 token whose subject is bound to the cluster', async () => {
    const start = gw.offers.length;
    const res = await send(await keys.sign({ sub: 'flux-prod' }));
    expect(res.status).toBe(202);
    expect(gw.offers.slice(start).map((o) => o.key.cluster)).toEqual(['prod']);
  });

  it('rejects a subject bound to another cluster, without offering', async () => {
    const start = gw.offers.length;
    const res = await send(await keys.sign({ sub: 'flux-dev' }), 'prod');
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual(UNAUTHENTICATED);
    expect(gw.offers.length).toBe(start);
  });

  it('rejects wrong issuer, wrong audience and expiry', async () => {
    const past = Math.floor(Date.now() / 1000) - 3600;
    const tokens = [
      await keys.sign({ sub: 'flux-prod' }, { issuer: 'https://evil.test' }),
      await keys.sign({ sub: 'flux-prod' }, { audience: 'someone-else' }),
      await keys.sign({ sub: 'flux-prod' }, { exp: past }),
    ];
    for (const token of tokens) {
      const res = await send(token);
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual(UNAUTHENTICATED);
    }
  });

  it('rejects alg none', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url({ sub: 'flux-prod', iss: ISSUER, aud: AUDIENCE, exp: now + 300 })}.`;
    const res = await send(token);
    expect(res.status).toBe(401);
  });

  it('rejects an HS256 token keyed with the RS256 public key material', async () => {
    const token = await new SignJWT({ sub: 'flux-prod' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(keys.publicPem));
    const res = await send(token);
    expect(res.status).toBe(401);
  });

  it('rejects a token signed by an unknown key and a token without exp', async () => {
    const stranger = await jwtFixture();
    const noExp = await new SignJWT({ sub: 'flux-prod' })
      .setProtectedHeader({ alg: 'RS256' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .sign(keys.privateKey);
    for (const token of [await stranger.sign({ sub: 'flux-prod' }), noExp]) {
      expect((await send(token)).status).toBe(401);
    }
  });
});

describe('bearer JWT verified against a remote JWKS', () => {
  let jwks: Server;
  let gw: Gateway;
  let sign: (sub: string) => Promise<string>;

  beforeAll(async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
    jwks = createServer((_req, res) => {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    const address = jwks.address();
    if (address === null || typeof address === 'string') throw new Error('no address');
    const config = testConfig();
    gw = await startGateway({
      config: {
        ...config,
        jwt: {
          issuer: ISSUER,
          audience: AUDIENCE,
          algorithms: ['ES256'],
          jwksUrl: `http://127.0.0.1:${address.port}/jwks.json`,
          publicKeys: [],
          clockToleranceSeconds: 0,
          maxTokenAgeSeconds: 86_400,
        },
      },
    });
    sign = (sub) =>
      new SignJWT({ sub })
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey);
  });
  afterAll(async () => {
    await gw.close();
    await new Promise((resolve) => jwks.close(resolve));
  });

  it('accepts a token whose key is in the JWKS and rejects an unbound subject', async () => {
    const ok = await post(`${gw.url}/v1/events/dev`, body, {
      authorization: `Bearer ${await sign('flux-dev')}`,
    });
    expect(ok.status).toBe(202);
    const wrong = await post(`${gw.url}/v1/events/dev`, body, {
      authorization: `Bearer ${await sign('flux-prod')}`,
    });
    expect(wrong.status).toBe(401);
  });
});
