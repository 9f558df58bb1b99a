/**
 * "Why was I refused?" through real HTTP against the real gateway on kube-sim: every refused
 * credential answers the same 401 body, while the operator's log gets one `request refused`
 * line per source a minute naming the reason (BadSignature, KeyOfAnotherCluster, Expired,
 * WrongAudience, MissingJti, ...), the refusals metric counts each one, and no line holds a
 * key, a signature or a token.
 */
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signBody } from '../../src/auth/hmac.js';
import { startIssuer, type TestIssuer } from '../support/authorizations.js';
import {
  launchGateway,
  metricSum,
  postSigned,
  startTestFleet,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';

const JWT_ISSUER = 'https://flux-tokens.example.com';
const AUDIENCE = 'promotion-gateway';
const UNAUTHENTICATED = '{"code":"Unauthenticated","message":"Authentication failed."}';
const EVENT = Buffer.from(
  '{"involvedObject":{"kind":"HelmRelease","name":"podinfo","namespace":"apps"},"reason":"UpgradeSucceeded"}',
);
const WRONG_KEY = Buffer.from('a-key-nobody-configured-1234');

let fleet: TestFleet;
let gw: RunningGateway;
let sso: TestIssuer;
let jwtKey: CryptoKey;
const logLines: string[] = [];
/** Every credential sent, to show that none of them reaches the log. */
const sent: string[] = [];

beforeAll(async () => {
  sso = await startIssuer('https://sso.example.com');
  const pair = await generateKeyPair('RS256', { extractable: true });
  jwtKey = pair.privateKey;
  fleet = await startTestFleet();
  gw = await launchGateway(fleet, {
    logLines,
    config: {
      // The tests speak for several clients through X-Forwarded-For, as behind an ingress.
      server: { host: '127.0.0.1', port: 0, trustProxy: true },
      rateLimit: { max: 100_000 },
      jwt: {
        issuer: JWT_ISSUER,
        audience: AUDIENCE,
        algorithms: ['RS256'],
        // Named by its kid, which the log may show: a key id is public.
        publicKeys: [
          { value: JSON.stringify({ ...(await exportJWK(pair.publicKey)), kid: 'flux-key-1' }) },
        ],
      },
      approvals: {
        approvers: [{ name: 'bob', oidcSubjects: [`${sso.issuer}#bob`], groups: [] }],
        oidc: { issuer: sso.issuer, audience: AUDIENCE, jwksUrl: sso.jwksUrl },
      },
    },
  });
});
afterAll(async () => {
  await gw.close();
  await fleet.close();
  await sso.close();
});

/** A JWT for the events door: subject flux-dev, with `claims` and `audience` as given. */
function fluxToken(claims: Record<string, unknown>, audience = AUDIENCE): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ sub: 'flux-dev', iat: now, exp: now + 300, ...claims })
    .setProtectedHeader({ alg: 'RS256', kid: 'flux-key-1' })
    .setIssuer(JWT_ISSUER)
    .setAudience(audience)
    .sign(jwtKey);
}

/** POSTs the event to /v1/events/dev from client `ip` with `headers`. */
function postEvent(ip: string, headers: Record<string, string>): Promise<Response> {
  return postSigned(gw.url, '/v1/events/dev', EVENT, undefined, {
    'x-forwarded-for': ip,
    ...headers,
  });
}

interface RefusalLine {
  msg: string;
  level: number;
  reason: string;
  door: string;
  route: string;
  ip: string;
  cluster?: string;
  keyOf?: string;
  issuer?: string;
  subject?: string;
  kid?: string;
  suppressed?: number;
}

function refusalLines(ip: string): RefusalLine[] {
  return logLines
    .map((line) => JSON.parse(line) as RefusalLine)
    .filter((line) => line.msg === 'request refused' && line.ip === ip);
}

/** Answers 401 with the one uniform body; resolves with the line logged for `ip`. */
async function refused(answer: Promise<Response>, ip: string): Promise<RefusalLine> {
  const res = await answer;
  expect(res.status).toBe(401);
  expect(await res.text()).toBe(UNAUTHENTICATED);
  const lines = refusalLines(ip);
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

describe('a refused credential', () => {
  it('signed with a wrong key: BadSignature, naming the cluster of the URL', async () => {
    const signature = signBody(EVENT, WRONG_KEY);
    sent.push(signature.slice(7), WRONG_KEY.toString('utf8'));
    const line = await refused(postEvent('10.9.0.1', { 'x-signature': signature }), '10.9.0.1');
    expect(line).toMatchObject({
      level: 40,
      reason: 'BadSignature',
      door: 'flux-event',
      route: '/v1/events/:cluster',
      cluster: 'dev',
    });
  });

  it("signed with another cluster's key: KeyOfAnotherCluster, naming whose", async () => {
    const signature = signBody(EVENT, fleet.key('staging'));
    sent.push(signature.slice(7));
    const line = await refused(postEvent('10.9.0.2', { 'x-signature': signature }), '10.9.0.2');
    expect(line).toMatchObject({ reason: 'KeyOfAnotherCluster', cluster: 'dev', keyOf: 'staging' });
  });

  it('an expired JWT: Expired, with its public kid, issuer and subject', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await fluxToken({ iat: now - 600, exp: now - 60 });
    sent.push(token);
    const line = await refused(
      postEvent('10.9.0.3', { authorization: `Bearer ${token}` }),
      '10.9.0.3',
    );
    expect(line).toMatchObject({
      reason: 'Expired',
      kid: 'flux-key-1',
      issuer: JWT_ISSUER,
      subject: 'flux-dev',
    });
  });

  it('a JWT for another audience: WrongAudience', async () => {
    const token = await fluxToken({}, 'some-other-service');
    sent.push(token);
    const line = await refused(
      postEvent('10.9.0.4', { authorization: `Bearer ${token}` }),
      '10.9.0.4',
    );
    expect(line.reason).toBe('WrongAudience');
  });

  it('an SSO token without the jti an approval requires: MissingJti, on the approval door', async () => {
    const token = await sso.token({ sub: 'bob', jti: undefined });
    sent.push(token);
    const answer = fetch(`${gw.url}/v1/pipelines/apps/podinfo/environments/prod/approvals`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${token}`,
        'x-forwarded-for': '10.9.0.5',
      },
      body: JSON.stringify({ revision: '6.6.0', decision: 'approve' }),
    });
    const line = await refused(answer, '10.9.0.5');
    expect(line).toMatchObject({
      reason: 'MissingJti',
      door: 'approval',
      issuer: sso.issuer,
      subject: 'bob',
    });
  });

  it('is counted by door and reason in promotion_gateway_refusals_total', async () => {
    const count = (door: string, reason: string) =>
      metricSum(gw.url, 'promotion_gateway_refusals_total', { door, reason });
    expect(await count('flux-event', 'BadSignature')).toBe(1);
    expect(await count('flux-event', 'KeyOfAnotherCluster')).toBe(1);
    expect(await count('flux-event', 'Expired')).toBe(1);
    expect(await count('flux-event', 'WrongAudience')).toBe(1);
    expect(await count('approval', 'MissingJti')).toBe(1);
  });
});

describe('a flood of refused credentials', () => {
  it('1,000 bad requests from one source log one line; the next minute tells the count', async () => {
    const ip = '10.9.1.1';
    const signature = signBody(EVENT, Buffer.from(`flood-${randomUUID()}`));
    const before = logLines.length;
    for (let batch = 0; batch < 10; batch++) {
      const answers = await Promise.all(
        Array.from({ length: 100 }, () => postEvent(ip, { 'x-signature': signature })),
      );
      expect(answers.every((res) => res.status === 401)).toBe(true);
      await Promise.all(answers.map((res) => res.text()));
    }
    expect(refusalLines(ip)).toHaveLength(1);
    // Nor does anything else log a line per refused request.
    expect(logLines.length - before).toBeLessThanOrEqual(3);
    expect(
      await metricSum(gw.url, 'promotion_gateway_refusals_total', { reason: 'BadSignature' }),
    ).toBe(1001);

    gw.advanceClock(61_000);
    expect((await postEvent(ip, { 'x-signature': signature })).status).toBe(401);
    const lines = refusalLines(ip);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({ reason: 'BadSignature', suppressed: 999 });
  });
});

describe('two replicas', () => {
  it('each answers the same 401 and logs and counts its own refusal', async () => {
    const otherLines: string[] = [];
    const other = await launchGateway(fleet, { instanceId: 'gateway-other', logLines: otherLines });
    try {
      const signature = signBody(EVENT, fleet.key('prod'));
      sent.push(signature.slice(7));
      const headers = { 'X-Signature': signature };
      const answers = await Promise.all(
        [gw.url, other.url].map((url) =>
          postSigned(url, '/v1/events/dev', EVENT, undefined, headers),
        ),
      );
      expect(answers.map((res) => res.status)).toEqual([401, 401]);
      expect(await Promise.all(answers.map((res) => res.text()))).toEqual([
        UNAUTHENTICATED,
        UNAUTHENTICATED,
      ]);
      const fromOther = otherLines
        .map((line) => JSON.parse(line) as RefusalLine)
        .filter((line) => line.msg === 'request refused');
      expect(fromOther).toMatchObject([{ reason: 'KeyOfAnotherCluster', keyOf: 'prod' }]);
      expect(refusalLines('127.0.0.1')).toMatchObject([
        { reason: 'KeyOfAnotherCluster', keyOf: 'prod' },
      ]);
      const count = (url: string) =>
        metricSum(url, 'promotion_gateway_refusals_total', { reason: 'KeyOfAnotherCluster' });
      expect([await count(gw.url), await count(other.url)]).toEqual([2, 1]);
      logLines.push(...otherLines);
    } finally {
      await other.close();
    }
  });
});

describe('the log', () => {
  it('holds no key, signature or token that was sent or configured', () => {
    const output = logLines.join('');
    expect(output).toContain('request refused');
    const configured = ['dev', 'staging', 'prod'].map((name) => fleet.key(name).toString('utf8'));
    const secrets = [...sent, ...sent.filter((s) => s.includes('.')).map((t) => t.split('.')[2])];
    for (const secret of [...secrets, ...configured]) {
      expect(secret?.length).toBeGreaterThan(8);
      expect(output).not.toContain(secret);
    }
  });
});
