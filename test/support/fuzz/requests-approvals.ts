/**
 * Clean requests of the authorization doors, each with what its credential should earn: a
 * person's approval (a signed statement by alice or bob for exactly the URL's Pipeline and
 * environment, or an SSO token with a JSON body) and a CI job's trigger (its OIDC token, whose
 * claims a policy matches, or not: 403). Noise and framing come on top (noise.ts).
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { STATEMENT_TYPE } from '../../../src/auth/statement.js';
import { tokenArb, worst, type Claims, type FuzzToken, type Profile } from './claims.js';
import { bearerArb } from './credentials.js';
import { AUDIENCE, CI_CLAIMS, CI_ISSUER, SSO_ISSUER, type DoorContext } from './doors-app.js';
import type { Signer } from './jws.js';
import type { CleanRequest } from './noise.js';
import { dnsName } from './requests-hmac.js';

/** People's SSO tokens and CI jobs' tokens: issuer, audience, `jti`, an hour's age at most. */
const OIDC = { audience: AUDIENCE, requiresJti: true, maxAgeSeconds: 3600, toleranceSeconds: 30 };
/** A person's SSO token. */
export const SSO_PROFILE: Profile = { issuer: SSO_ISSUER, ...OIDC };
/** A CI job's token. */
export const CI_PROFILE: Profile = { issuer: CI_ISSUER, ...OIDC };
/** Statements pin their `typ` and bound their lifetime (approvals.maxStatementLifetimeSeconds). */
export const STATEMENT_PROFILE: Profile = {
  typ: STATEMENT_TYPE,
  requiresJti: true,
  maxAgeSeconds: 900,
  toleranceSeconds: 30,
  maxLifetimeSeconds: 900,
};

/** A URL's Pipeline and environment: mostly the gated one, else another or an odd one. */
export interface Target {
  ns: string;
  name: string;
  env: string;
}

/** Where a request goes: the Pipeline with a gate (prod or staging), or some other one. */
export function targetArb(context: DoorContext): fc.Arbitrary<Target> {
  const { namespace, name } = context.pipeline;
  return fc.oneof(
    {
      arbitrary: fc.constantFrom('prod', 'staging').map((env) => ({ ns: namespace, name, env })),
      weight: 4,
    },
    fc
      .tuple(dnsName, dnsName, fc.constantFrom('prod', 'dev'))
      .map(([ns, n, env]) => ({ ns, name: n, env })),
  );
}

const pathOf = (t: Target, door: string) =>
  `/v1/pipelines/${t.ns}/${t.name}/environments/${encodeURIComponent(t.env)}/${door}`;

/** What a person or a job asks for: approve, reject, or break the glass with a reason. */
const decision = fc.oneof(
  fc.constantFrom(
    { decision: 'approve' },
    { decision: 'reject' },
    { decision: 'approve', comment: 'looks good' },
  ),
  fc.constant({ decision: 'break-glass', comment: 'incident 42' }),
);
const revision = fc.oneof(
  fc.constantFrom('6.6.0', 'v1.2.3'),
  fc.stringMatching(/^[a-z0-9.+-]{1,30}$/),
);

/** A signed statement by `who` (or claiming to be `claimed`) about `about`. */
function statementArb(
  who: Signer,
  attacker: Signer,
  about: Target,
  claimed: string,
): fc.Arbitrary<FuzzToken> {
  const maker = { signer: who, attacker, typ: STATEMENT_TYPE };
  return fc.tuple(revision, decision).chain(([rev, d]) =>
    tokenArb(maker, STATEMENT_PROFILE, (now) => ({
      sub: claimed,
      pipeline: `${about.ns}/${about.name}`,
      environment: about.env,
      revision: rev,
      ...d,
      iat: now,
      exp: now + 300,
      jti: randomUUID(),
    })),
  );
}

/** POST .../approvals with a statement (application/jose): valid only for exactly its URL. */
function statementRequests(context: DoorContext): fc.Arbitrary<CleanRequest> {
  const { alice, bob, attackerEd, attackerEc } = context.keys;
  const signer = fc.constantFrom(
    { who: alice, attacker: attackerEd, other: 'bob' },
    { who: bob, attacker: attackerEc, other: 'alice' },
  );
  const elsewhere = (t: Target) =>
    fc.constantFrom({ ...t, env: 'dev' }, { ...t, name: `${t.name}-other` }, { ...t, ns: 'other' });
  return fc.tuple(targetArb(context), signer).chain(([url, s]) =>
    fc
      .record({
        about: fc.oneof({ arbitrary: fc.constant(url), weight: 4 }, elsewhere(url)),
        impersonating: fc.oneof({ arbitrary: fc.constant(false), weight: 5 }, fc.constant(true)),
      })
      .chain(({ about, impersonating }) => {
        const same = about.ns === url.ns && about.name === url.name && about.env === url.env;
        return statementArb(s.who, s.attacker, about, impersonating ? s.other : s.who.kid).map(
          (t) => ({
            method: 'POST',
            path: pathOf(url, 'approvals'),
            headers: [['content-type', 'application/jose']] as [string, string][],
            body: Buffer.from(t.token),
            // Only a statement naming exactly the URL's Pipeline and environment, by its signer.
            validity: worst(t.validity, same && t.claims.sub === s.who.kid ? 'valid' : 'invalid'),
            label: `statement:${s.who.kid}${same ? '' : ':elsewhere'}${impersonating ? ':impersonating' : ''} ${t.label}`,
            expected: { status: 202, effect: true },
          }),
        );
      }),
  );
}

/** SSO claims of a person (alice's identity, or someone the approvers do not list). */
export function ssoToken(context: DoorContext): fc.Arbitrary<FuzzToken> {
  const maker = { signer: context.keys.sso, attacker: context.keys.attackerRsa };
  return fc.constantFrom('alice-sub', 'carol-sub').chain((sub) =>
    tokenArb(maker, SSO_PROFILE, (now) => ({
      iss: SSO_ISSUER,
      aud: AUDIENCE,
      sub,
      iat: now,
      exp: now + 300,
      jti: randomUUID(),
    })),
  );
}

/** POST .../approvals with an SSO bearer token and a JSON body. */
function ssoRequests(context: DoorContext): fc.Arbitrary<CleanRequest> {
  return fc
    .tuple(targetArb(context), bearerArb(ssoToken(context)), revision, decision)
    .map(([url, bearer, rev, d]) => ({
      method: 'POST',
      path: pathOf(url, 'approvals'),
      headers: [['content-type', 'application/json'], ...bearer.headers],
      body: Buffer.from(JSON.stringify({ revision: rev, ...d })),
      validity: bearer.validity,
      label: `sso ${bearer.label}`,
      expected: { status: 202, effect: true },
    }));
}

/** A person's approval: a signed statement or an SSO token. */
export function approvalRequests(context: DoorContext): fc.Arbitrary<CleanRequest> {
  return fc.oneof(statementRequests(context), ssoRequests(context));
}

/** Whether the CI policy (`deploy`: acme/podinfo's main, Pipelines apps/*, prod) covers it. */
export function ciCovers(claims: Claims, t: { ns: string; env?: string | undefined }): boolean {
  const matches = claims.repository === CI_CLAIMS.repository && claims.ref === CI_CLAIMS.ref;
  return matches && t.ns === 'apps' && t.env === 'prod';
}

/** A CI job's token: mostly from the CI issuer (its claims matching the policy or not). */
export function ciToken(context: DoorContext): fc.Arbitrary<FuzzToken> {
  const maker = { signer: context.keys.ci, attacker: context.keys.attackerRsa };
  const claims = fc.record({
    repository: fc.oneof(
      { arbitrary: fc.constant(CI_CLAIMS.repository), weight: 4 },
      fc.constant('evil/podinfo'),
    ),
    ref: fc.oneof(
      { arbitrary: fc.constant(CI_CLAIMS.ref), weight: 4 },
      fc.constant('refs/heads/dev'),
    ),
  });
  return claims.chain((c) =>
    tokenArb(maker, CI_PROFILE, (now) => ({
      iss: CI_ISSUER,
      aud: AUDIENCE,
      sub: `repo:${c.repository}`,
      ...c,
      iat: now,
      exp: now + 300,
      jti: randomUUID(),
    })),
  );
}

/** POST .../promotions: a CI token (or a person's, which no CI issuer vouches for). */
export function ciRequests(context: DoorContext): fc.Arbitrary<CleanRequest> {
  const person = ssoToken(context).map((t) => ({
    ...t,
    validity: 'invalid' as const,
    label: `sso-token ${t.label}`,
  }));
  const token = fc.oneof({ arbitrary: ciToken(context), weight: 4 }, person);
  const body = fc.oneof(
    revision.map((rev) => ({ revision: rev })),
    revision.map((rev) => ({ revision: rev, decision: 'break-glass', comment: 'hotfix' })),
  );
  const credential = token.chain((t) => bearerArb(fc.constant(t)).map((b) => ({ t, b })));
  return fc.tuple(targetArb(context), credential, body).map(([url, { t, b }, payload]) => ({
    method: 'POST',
    path: pathOf(url, 'promotions'),
    headers: [['content-type', 'application/json'], ...b.headers],
    body: Buffer.from(JSON.stringify(payload)),
    validity: b.validity,
    label: `ci ${b.label}`,
    expected: ciCovers(t.claims, url)
      ? { status: 202, effect: true }
      : { status: 403, effect: false },
  }));
}
