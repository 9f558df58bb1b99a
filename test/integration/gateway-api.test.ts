/**
 * The other doors of the real gateway on kube-sim: the legacy weave webhook (a signed hint
 * that only triggers re-verification), bearer JWTs on /v1/events (one end-to-end table of
 * forgeries), the verified pipeline view, and readiness.
 */
import { SignJWT, exportSPKI, generateKeyPair } from 'jose';
import type { CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signBody } from '../../src/auth/hmac.js';
import {
  APP_NAME,
  HR_API,
  HR_RESOURCE,
  createApp,
  eventually,
  launchGateway,
  pipelineOf,
  postSigned,
  promoteEvents,
  recordOf,
  rollOut,
  startTestFleet,
  upgradeBody,
  waitSteady,
} from '../support/gateway-harness.js';
import type { RunningGateway, TestFleet } from '../support/gateway-harness.js';
import type { ConfigInput } from '../../src/config/input.js';

const ISSUER = 'https://issuer.test';
const AUDIENCE = 'promotion-gateway';
const LEGACY_KEY = Buffer.from('legacy-pipeline-hmac-key');
const UNAUTHENTICATED = { code: 'Unauthenticated', message: 'Authentication failed.' };

let fleet: TestFleet;
let gw: RunningGateway;
let privateKey: CryptoKey;
let publicPem: string;

beforeAll(async () => {
  const pair = await generateKeyPair('RS256');
  privateKey = pair.privateKey;
  publicPem = await exportSPKI(pair.publicKey);
  fleet = await startTestFleet();
  gw = await launchGateway(fleet, { config: jwtConfig() });
});
afterAll(async () => {
  await gw.close();
  await fleet.close();
});

function jwtConfig(): ConfigInput {
  return {
    jwt: {
      issuer: ISSUER,
      audience: AUDIENCE,
      algorithms: ['RS256'],
      publicKeys: [{ value: publicPem }],
    },
  };
}

/** An RS256 token from the configured key; `edit` changes claims before signing. */
function token(
  claims: Record<string, unknown>,
  edit: (jwt: SignJWT) => SignJWT = (j) => j,
): Promise<string> {
  const jwt = new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime('5m');
  return edit(jwt).sign(privateKey);
}

function b64url(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** GETs of ns/podinfo's HelmRelease per environment cluster. */
function reads(ns: string): Record<string, number> {
  return Object.fromEntries(
    ['dev', 'staging', 'prod'].map((env) => [
      env,
      fleet.env(env).requests.count({ verb: 'get', resource: HR_RESOURCE, namespace: ns }),
    ]),
  );
}

function legacy(ns: string, env: string, body: Buffer, key: Buffer | undefined): Promise<Response> {
  return postSigned(gw.url, `/promotion/${ns}/${APP_NAME}/${env}`, body, key);
}

describe('the real gateway on kube-sim: legacy webhook, JWT, view, readiness', () => {
  it('treats a legacy webhook call as a signed hint that only re-verifies', async () => {
    const ns = 'legacy';
    createApp(fleet, ns, { legacyKey: LEGACY_KEY });
    await waitSteady(fleet, [gw], ns);
    const prodObject = fleet.prod.get(HR_API, 'HelmRelease', ns, APP_NAME) as never;
    // What a weave Provider posts: the Flux event, here claiming 9.9.9 reached prod.
    const claim = upgradeBody(prodObject, '9.9.9');

    const start = reads(ns);
    const refused = [
      await legacy(ns, 'prod', claim, undefined),
      await legacy(ns, 'prod', claim, Buffer.from('not-the-pipeline-key')),
      // Signed right, but over other bytes than those sent.
      await postSigned(gw.url, `/promotion/${ns}/${APP_NAME}/prod`, claim, undefined, {
        'X-Signature': signBody(Buffer.concat([claim, Buffer.from(' ')]), LEGACY_KEY),
      }),
    ];
    for (const res of refused) {
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual(UNAUTHENTICATED);
    }
    await gw.gateway.idle();
    expect(reads(ns)).toEqual(start);

    // Signed with the Pipeline's hmac-key: 202, every target re-read, and nothing to promote.
    const accepted = await legacy(ns, 'prod', claim, LEGACY_KEY);
    expect(accepted.status).toBe(202);
    expect(await accepted.json()).toEqual({ accepted: true });
    await gw.gateway.idle();
    const after = reads(ns);
    for (const env of ['dev', 'staging', 'prod']) expect(after[env]).toBe((start[env] ?? 0) + 1);
    for (const env of ['staging', 'prod']) expect(recordOf(fleet, ns, env)).toBeUndefined();
    expect(promoteEvents(fleet, ns)).toEqual([]);

    // dev really moved (and no Flux event came): the same call promotes what the cluster
    // supports, staging to 6.6.0, and neither prod nor 9.9.9.
    rollOut(fleet.dev, ns, '6.6.0');
    expect((await legacy(ns, 'prod', claim, LEGACY_KEY)).status).toBe(202);
    await eventually(() => {
      expect(recordOf(fleet, ns, 'staging')).toMatchObject({
        revision: '6.6.0',
        phase: 'Succeeded',
        attempt: 1,
      });
    });
    await gw.gateway.idle();
    expect(recordOf(fleet, ns, 'prod')).toBeUndefined();
    expect(promoteEvents(fleet, ns).map((e) => e.metadata.annotations)).toEqual([
      { environment: 'staging', version: '6.6.0' },
    ]);
    expect(JSON.stringify(pipelineOf(fleet, ns).status)).not.toContain('9.9.9');
  });

  it('refuses forged or misdirected JWTs on /v1/events/dev before any read', async () => {
    const ns = 'jwt';
    createApp(fleet, ns);
    await waitSteady(fleet, [gw], ns);
    const body = upgradeBody(fleet.dev.get(HR_API, 'HelmRelease', ns, APP_NAME) as never);
    const now = Math.floor(Date.now() / 1000);
    const claims = { sub: 'flux-dev' };
    const table: [string, string][] = [
      ['wrong issuer', await token(claims, (j) => j.setIssuer('https://evil.test'))],
      ['wrong audience', await token(claims, (j) => j.setAudience('someone-else'))],
      [
        'expired',
        await token(claims, (j) => j.setIssuedAt(now - 7200).setExpirationTime(now - 3600)),
      ],
      [
        'alg none',
        `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url({ ...claims, iss: ISSUER, aud: AUDIENCE, exp: now + 300 })}.`,
      ],
      [
        'HS256 keyed with the RS256 public key',
        await new SignJWT(claims)
          .setProtectedHeader({ alg: 'HS256' })
          .setIssuer(ISSUER)
          .setAudience(AUDIENCE)
          .setExpirationTime('5m')
          .sign(new TextEncoder().encode(publicPem)),
      ],
      ['subject bound to another cluster', await token({ sub: 'flux-prod' })],
    ];
    const start = reads(ns);
    for (const [name, jwt] of table) {
      const res = await postSigned(gw.url, '/v1/events/dev', body, undefined, {
        Authorization: `Bearer ${jwt}`,
      });
      expect({ name, status: res.status, body: await res.json() }).toEqual({
        name,
        status: 401,
        body: UNAUTHENTICATED,
      });
    }
    await gw.gateway.idle();
    expect(reads(ns)).toEqual(start);

    // The same request with a valid token is accepted and read: the table was not vacuous.
    const valid = await postSigned(gw.url, '/v1/events/dev', body, undefined, {
      Authorization: `Bearer ${await token(claims)}`,
    });
    expect(valid.status).toBe(202);
    await eventually(() => reads(ns).dev === (start.dev ?? 0) + 1);
  });

  it('shows every target verified state and each environment reason on GET /v1/pipelines', async () => {
    const ns = 'viewed';
    createApp(fleet, ns);
    await waitSteady(fleet, [gw], ns);
    const res = await postSigned(
      gw.url,
      '/v1/events/dev',
      upgradeBody(rollOut(fleet.dev, ns, '6.6.0')),
      fleet.key('dev'),
    );
    expect(res.status).toBe(202);
    await eventually(() => recordOf(fleet, ns, 'staging')?.phase === 'Succeeded');
    await gw.gateway.idle();

    const url = `${gw.url}/v1/pipelines/${ns}/${APP_NAME}`;
    const get = async (jwt?: string) =>
      fetch(url, jwt === undefined ? {} : { headers: { Authorization: `Bearer ${jwt}` } });
    const view = await get(await token({ sub: 'viewer', pipelines: [`${ns}/*`] }));
    expect(view.status).toBe(200);
    const healthy = (cluster: string, revision: string) => [
      {
        location: { cluster, namespace: ns },
        health: 'Healthy',
        revision,
        reason: 'Ready',
        message: `HelmRelease ${APP_NAME} is ready at ${revision}`,
      },
    ];
    const body = (await view.json()) as { targets: unknown; decisions: { message: string }[] };
    expect(body).toMatchObject({
      namespace: ns,
      name: APP_NAME,
      targets: {
        dev: healthy('dev', '6.6.0'),
        staging: healthy('staging', '6.5.0'),
        prod: healthy('prod', '6.5.0'),
      },
      decisions: [
        { environment: 'dev', outcome: 'Source', revision: '6.6.0', reason: 'Ready' },
        {
          environment: 'staging',
          outcome: 'AlreadyPromoted',
          revision: '6.6.0',
          reason: 'PromotionSucceeded',
        },
        { environment: 'prod', outcome: 'UpToDate', revision: '6.5.0', reason: 'Deployed' },
      ],
    });
    for (const d of body.decisions) expect(d.message).not.toBe('');

    // Out of scope answers like a pipeline that does not exist; no token is a 401.
    const other = await get(await token({ sub: 'viewer', pipelines: ['elsewhere/*'] }));
    expect(other.status).toBe(404);
    expect((await get()).status).toBe(401);
  });

  it('answers /readyz 503 until started, then 200', async () => {
    const second = await launchGateway(fleet, { instanceId: 'not-started', start: false });
    try {
      const before = await fetch(`${second.url}/readyz`);
      expect(before.status).toBe(503);
      expect(await before.json()).toMatchObject({
        code: 'NotReady',
        reasons: ['Pipelines are not loaded yet', 'the first resync has not completed'],
      });
      await second.gateway.start();
      await eventually(async () => {
        const after = await fetch(`${second.url}/readyz`);
        expect(after.status).toBe(200);
        expect(await after.json()).toEqual({ status: 'ready' });
      });
      await second.gateway.idle();
    } finally {
      await second.close();
    }
  });
});
