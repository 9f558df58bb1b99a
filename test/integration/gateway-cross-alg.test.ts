/**
 * Every credential failure is a 401, whatever the alg/key combination: through real HTTP
 * against kube-sim, statements naming each approver (an Ed25519 and a P-256 key) and CI tokens
 * naming each key of the issuer's JWKS (RSA, P-256, P-384, P-521, Ed25519, and two keys the
 * issuer published broken) are sent under every JWS algorithm and malformed. Each answer is
 * 401 Unauthenticated, never a 5xx; nothing is recorded, the Pipeline's status does not change
 * and no cluster is read.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signStatement, STATEMENT_TYPE } from '../../src/auth/statement.js';
import {
  approver,
  postPromotion,
  postStatement,
  type TestApprover,
} from '../support/authorizations.js';
import {
  CONFIGURABLE_ALGORITHMS,
  crossAlgTokens,
  signingKeys,
  type SigningKeys,
} from '../support/cross-alg.js';
import {
  APP_NAME,
  ENVIRONMENTS,
  createApp,
  eventually,
  launchGateway,
  pipelineOf,
  promoteEvents,
  rollOut,
  startTestFleet,
  waitSteady,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';

const ISSUER = 'https://ci.example.com';
const AUDIENCE = 'promotion-gateway';
const NS = 'cross-alg';
/** The revision prod waits to have approved. */
const WAITING = '6.6.0';
/** The CI issuer's signing keys, by kid: one of every type its config allows. */
const CI_KEY_TYPES = { rsa: 'RS256', p256: 'ES256', p384: 'ES384', p521: 'ES512', ed: 'EdDSA' };

let fleet: TestFleet;
let gw: RunningGateway;
let jwks: Server;
let keys: SigningKeys;
let eddie: TestApprover;
let pat: TestApprover;
const ciKeys = new Map<string, CryptoKey>();

/** An approver with a P-256 key (the test support makes Ed25519 ones). */
async function p256Approver(name: string): Promise<TestApprover> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  return { name, privateKey, publicKeyPem: await exportSPKI(publicKey), groups: [] };
}

/** The JWKS: each key of CI_KEY_TYPES without `alg`, and two whose points are not on the curve. */
async function issuerKeys(): Promise<JWK[]> {
  const published: JWK[] = [];
  for (const [kid, alg] of Object.entries(CI_KEY_TYPES)) {
    const pair = await generateKeyPair(alg, { extractable: true });
    ciKeys.set(kid, pair.privateKey);
    published.push({ ...(await exportJWK(pair.publicKey)), kid, use: 'sig' });
  }
  const ec = published.find((k) => k.kid === 'p256');
  const ed = published.find((k) => k.kid === 'ed');
  published.push({ ...ec, kid: 'broken-ec', x: 'AAAA' }, { ...ed, kid: 'broken-ed', x: 'AAAA' });
  return published;
}

async function serve(body: unknown): Promise<{ server: Server; url: string }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/` };
}

beforeAll(async () => {
  [keys, eddie, pat] = await Promise.all([signingKeys(), approver('eddie'), p256Approver('pat')]);
  const served = await serve({ keys: await issuerKeys() });
  jwks = served.server;
  fleet = await startTestFleet();
  gw = await launchGateway(fleet, {
    config: {
      approvals: {
        approvers: [eddie, pat].map((a) => ({
          name: a.name,
          publicKeys: [{ value: a.publicKeyPem }],
        })),
      },
      ci: {
        issuers: [
          {
            name: 'ci',
            issuer: ISSUER,
            audience: AUDIENCE,
            jwksUrl: served.url,
            algorithms: CONFIGURABLE_ALGORITHMS,
          },
        ],
        policies: [
          {
            name: 'deploy',
            issuer: 'ci',
            claims: { repository: 'acme/podinfo' },
            pipelines: ['*'],
            environments: ['*'],
          },
        ],
      },
    },
  });
  // prod waits for an approval of 6.6.0: a statement or token that got through would count.
  createApp(fleet, NS, { prodPromotion: { manual: true } });
  await waitSteady(fleet, [gw], NS);
  rollOut(fleet.dev, NS, WAITING);
  rollOut(fleet.staging, NS, WAITING);
  await gw.gateway.resync();
  await gw.gateway.idle();
  await eventually(() => {
    expect(pipelineOf(fleet, NS).status?.environments?.prod?.waitingApproval).toMatchObject({
      revision: WAITING,
    });
  });
});
afterAll(async () => {
  await gw.close();
  await fleet.close();
  await new Promise((resolve) => jwks.close(resolve));
});

/** Requests to the fleet, but for the resync Lease's renewals, which go on at their own pace. */
function fleetRequests(): number {
  return ['management', ...ENVIRONMENTS].reduce((sum, name) => {
    const { total, byResource } = fleet.env(name).requests.snapshot();
    // The Lease's renewals and the looks at the PromotionAlerts and PromotionTrains run on their
    // own clock.
    const background =
      (byResource['leases.coordination.k8s.io'] ?? 0) +
      (byResource['promotionalerts.notifications.promotion-gateway.dev'] ?? 0) +
      (byResource['promotiontrains.pipelines.promotion-gateway.dev'] ?? 0);
    return sum + total - background;
  }, 0);
}

/** Sends each token with `post` and answers [what, status, body] for each. */
async function answers(
  tokens: [string, string][],
  post: (token: string) => Promise<Response>,
): Promise<[string, number, unknown][]> {
  const out: [string, number, unknown][] = [];
  for (const [what, token] of tokens) {
    const res = await post(token);
    out.push([what, res.status, await res.json()]);
  }
  return out;
}

const UNAUTHENTICATED = { code: 'Unauthenticated', message: 'Authentication failed.' };

/** Asserts every answer was the one 401, and that the Pipeline and the fleet saw nothing. */
async function expectAllRefused(run: () => Promise<[string, number, unknown][]>): Promise<number> {
  await gw.gateway.idle();
  const status = structuredClone(pipelineOf(fleet, NS).status);
  const reads = fleetRequests();
  const got = await run();
  expect(got).toEqual(got.map(([what]) => [what, 401, UNAUTHENTICATED]));
  await gw.gateway.idle();
  expect(pipelineOf(fleet, NS).status).toEqual(status);
  expect(pipelineOf(fleet, NS).status?.environments?.prod?.approvals).toBeUndefined();
  expect(
    promoteEvents(fleet, NS).filter((e) => e.metadata.annotations?.environment === 'prod'),
  ).toEqual([]);
  expect(fleetRequests()).toBe(reads);
  return got.length;
}

describe('statements naming an approver under any other alg or shape', () => {
  it.each([
    ['eddie (Ed25519)', () => eddie],
    ['pat (P-256)', () => pat],
  ])('are each refused with the one 401 for %s', async (_, who) => {
    const { name } = who();
    const now = Math.floor(Date.now() / 1000);
    const payload = {
      sub: name,
      pipeline: `${NS}/${APP_NAME}`,
      environment: 'prod',
      revision: WAITING,
      decision: 'approve',
      iat: now,
      exp: now + 300,
      jti: randomUUID(),
    };
    const tokens = await crossAlgTokens({ kid: name, typ: STATEMENT_TYPE }, payload, keys);
    const sent = await expectAllRefused(() =>
      answers(tokens, (jws) => postStatement(gw.url, NS, 'prod', jws)),
    );
    expect(sent).toBeGreaterThan(70);
  });

  it("still hear each approver's own statement: the door above is not simply shut", async () => {
    for (const [who, alg] of [
      [eddie, 'EdDSA'],
      [pat, 'ES256'],
    ] as const) {
      const now = Math.floor(Date.now() / 1000);
      const own = await signStatement(
        {
          ...{ sub: who.name, decision: 'approve', iat: now, exp: now + 300, jti: randomUUID() },
          ...{ pipeline: `${NS}/${APP_NAME}`, environment: 'prod', revision: '6.4.0' },
        },
        who.privateKey,
        alg,
      );
      // Authenticated: nothing waits for 6.4.0, so the answer is 409 NotWaiting, not 401.
      const res = await postStatement(gw.url, NS, 'prod', own);
      expect([who.name, res.status]).toEqual([who.name, 409]);
    }
  });
});

describe('CI tokens naming a key of the issuer under any other alg or shape', () => {
  function payload(): Record<string, unknown> {
    const now = Math.floor(Date.now() / 1000);
    return {
      iss: ISSUER,
      aud: AUDIENCE,
      sub: 'repo:acme/podinfo',
      repository: 'acme/podinfo',
      jti: randomUUID(),
      iat: now,
      exp: now + 300,
    };
  }

  it.each([...Object.keys(CI_KEY_TYPES), 'broken-ec', 'broken-ed'])(
    'are each refused with the one 401 for kid %s',
    async (kid) => {
      const tokens = await crossAlgTokens({ kid, typ: 'JWT' }, payload(), keys);
      const sent = await expectAllRefused(() =>
        answers(tokens, (token) => postPromotion(gw.url, NS, 'prod', token, WAITING)),
      );
      expect(sent).toBeGreaterThan(70);
    },
  );

  it("still hear the issuer's own tokens: authenticated, then 403 (the gate names no CI principal)", async () => {
    for (const [kid, alg] of Object.entries(CI_KEY_TYPES)) {
      const key = ciKeys.get(kid);
      if (key === undefined) throw new Error(`no key ${kid}`);
      const token = await new SignJWT(payload()).setProtectedHeader({ alg, kid }).sign(key);
      expect([kid, (await postPromotion(gw.url, NS, 'prod', token, WAITING)).status]).toEqual([
        kid,
        403,
      ]);
    }
  });
});
