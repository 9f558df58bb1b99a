/**
 * What the policy-gate integration tests share: a reader of `GET /v1/pipelines` (the gateway's
 * `jwt` configuration and the tokens it accepts), Flux's rollout of an environment heard by every
 * replica, and the Pipeline's PromotionPending condition and Promote Events.
 */
import { exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { expect } from 'vitest';
import type { JwtInput } from '../../src/config/input.js';
import type { Condition } from '../../src/pipeline/pipeline-resource.js';
import {
  APP_NAME,
  eventually,
  pipelineOf,
  postSigned,
  promoteEvents,
  rollOut,
  upgradeBody,
  type RunningGateway,
  type TestFleet,
} from './gateway-harness.js';

const ISSUER = 'https://issuer.test';
const AUDIENCE = 'promotion-gateway';

/** One environment's decision as the API shows it. */
export interface ApiDecision {
  environment: string;
  outcome?: string;
  reason: string;
  message: string;
  retryAt?: number;
  [field: string]: unknown;
}

/** A caller of the read API: its `jwt` config entry, its tokens, and one decision read. */
export interface ApiViewer {
  jwt: JwtInput & { publicKeys: { value: string }[] };
  token(claims: Record<string, unknown>): Promise<string>;
  decisionOf(g: RunningGateway, ns: string, env: string): Promise<ApiDecision>;
}

/** A fresh RS256 key the gateway's `jwt` entry trusts, and what it signs. */
export async function apiViewer(): Promise<ApiViewer> {
  const pair = await generateKeyPair('RS256');
  const jwt: ApiViewer['jwt'] = {
    issuer: ISSUER,
    audience: AUDIENCE,
    algorithms: ['RS256'],
    publicKeys: [{ value: await exportSPKI(pair.publicKey) }],
  };
  const token = (claims: Record<string, unknown>) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(pair.privateKey);
  const decisionOf = async (g: RunningGateway, ns: string, env: string) => {
    const bearer = await token({ sub: 'viewer', pipelines: [`${ns}/*`] });
    const res = await fetch(`${g.url}/v1/pipelines/${ns}/${APP_NAME}`, {
      headers: { Authorization: `Bearer ${bearer}` },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { decisions: ApiDecision[] };
    const found = body.decisions.find((d) => d.environment === env);
    if (found === undefined) throw new Error(`no decision for ${env}`);
    return found;
  };
  return { jwt, token, decisionOf };
}

/** `env` rolls out `version` and every replica hears Flux's event about it (202 each). */
export async function announceRollout(
  fleet: TestFleet,
  gateways: readonly RunningGateway[],
  ns: string,
  env: 'dev' | 'staging' | 'prod',
  version: string,
): Promise<void> {
  const body = upgradeBody(rollOut(fleet[env], ns, version));
  for (const g of gateways) {
    const res = await postSigned(g.url, `/v1/events/${env}`, body, fleet.key(env));
    expect(res.status).toBe(202);
  }
}

/** The Pipeline's PromotionPending condition, if any. */
export function pendingCondition(fleet: TestFleet, ns: string): Condition | undefined {
  return pipelineOf(fleet, ns).status?.conditions?.find((c) => c.type === 'PromotionPending');
}

/** Waits until PromotionPending says `reason` with `text` in its message. */
export function pendingWith(
  fleet: TestFleet,
  ns: string,
  reason: string,
  text: string,
): Promise<Condition> {
  return eventually(
    () => {
      const c = pendingCondition(fleet, ns);
      if (c?.reason !== reason || !c.message.includes(text))
        throw new Error(`PromotionPending is ${JSON.stringify(c)}`);
      return c;
    },
    { timeoutMs: 15_000 },
  );
}

/** Promote Events for `env` of ns/podinfo. */
export function promotionsTo(fleet: TestFleet, ns: string, env: string): number {
  return promoteEvents(fleet, ns).filter((e) => e.metadata.annotations?.environment === env).length;
}
