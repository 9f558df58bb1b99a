/**
 * Clean requests of the stop-the-line doors, each with what its credential should earn: halts
 * and lifts of one Pipeline (POST .../halts, DELETE .../halts/{id}) and across Pipelines (POST
 * /v1/halts with a selector, DELETE /v1/halts/{id}) with a person's SSO token or a CI job's
 * token (a CI job halts only what a policy covers: 403 otherwise), and approvers' signed halt
 * statements (application/jose): halt one Pipeline, halt a selector's, lift by id.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { HALT_STATEMENT_TYPE } from '../../../src/auth/halt-statement.js';
import { tokenArb, worst, type FuzzToken, type Profile } from './claims.js';
import { bearerArb } from './credentials.js';
import type { DoorContext } from './doors-app.js';
import type { CleanRequest } from './noise.js';
import { ciCovers, ciToken, ssoToken } from './requests-approvals.js';
import { dnsName } from './requests-hmac.js';

/** Halt statements pin their own `typ`, under the approval statements' limits. */
export const HALT_STATEMENT_PROFILE: Profile = {
  typ: HALT_STATEMENT_TYPE,
  requiresJti: true,
  maxAgeSeconds: 900,
  toleranceSeconds: 30,
  maxLifetimeSeconds: 900,
};

/** A bearer token of a person (any valid one may halt) or of a CI job (as its policy allows). */
function callerArb(context: DoorContext) {
  const person = ssoToken(context).map((t) => ({ t, ci: false }));
  const job = ciToken(context).map((t) => ({ t, ci: true }));
  return fc
    .oneof(person, job)
    .chain(({ t, ci }) => bearerArb(fc.constant(t)).map((b) => ({ t, b, ci })));
}

/** What the door answers a valid caller: `ok` for a person or a covered job, else 403. */
function answer(
  ci: boolean,
  t: FuzzToken,
  where: { ns: string; env?: string | undefined },
  ok: number,
) {
  return !ci || ciCovers(t.claims, where)
    ? { status: ok, effect: true }
    : { status: 403, effect: false };
}

const haltBody = fc.record(
  {
    environment: fc.constantFrom('prod', 'staging'),
    reason: fc.oneof(
      fc.constantFrom('incident 42', 'freeze'),
      fc.stringMatching(/^[A-Za-z0-9 .,:-]{1,60}$/).filter((r) => r.trim() !== ''),
    ),
    expiresAt: fc.constantFrom('2099-01-01T00:00:00Z', '2098-06-30T12:00:00.5+02:00'),
  },
  { requiredKeys: ['reason'] },
);

const haltId = fc.oneof(fc.constant('h-1'), fc.stringMatching(/^[A-Za-z0-9-]{1,64}$/));

/** A Pipeline a halt names: mostly the fleet's own, else another or an odd one. */
function pipelineArb(context: DoorContext) {
  const { namespace, name } = context.pipeline;
  return fc.oneof(
    { arbitrary: fc.constant({ ns: namespace, name }), weight: 4 },
    fc.tuple(dnsName, dnsName).map(([ns, n]) => ({ ns, name: n })),
  );
}

/** POST /v1/pipelines/{ns}/{name}/halts and DELETE .../halts/{id} with a bearer token. */
export function haltRequests(context: DoorContext): fc.Arbitrary<CleanRequest> {
  const lift = fc.tuple(pipelineArb(context), haltId, callerArb(context)).map(([p, id, c]) => ({
    method: 'DELETE',
    path: `/v1/pipelines/${p.ns}/${p.name}/halts/${id}`,
    headers: c.b.headers,
    body: Buffer.alloc(0),
    validity: c.b.validity,
    label: `lift ${c.ci ? 'ci' : 'sso'} ${c.b.label}`,
    expected: answer(c.ci, c.t, { ns: p.ns, env: 'prod' }, 200),
  }));
  const halt = fc.tuple(pipelineArb(context), haltBody, callerArb(context)).map(([p, body, c]) => ({
    method: 'POST',
    path: `/v1/pipelines/${p.ns}/${p.name}/halts`,
    headers: [['content-type', 'application/json'], ...c.b.headers] as [string, string][],
    body: Buffer.from(JSON.stringify(body)),
    validity: c.b.validity,
    label: `halt ${c.ci ? 'ci' : 'sso'} ${c.b.label}`,
    expected: answer(c.ci, c.t, { ns: p.ns, env: body.environment }, 201),
  }));
  return fc.oneof(halt, lift);
}

const selector = fc.oneof(
  fc.constantFrom('team=payments', 'team=payments,tier in (api,web)', '!canary', 'app'),
  fc.constantFrom(
    { matchLabels: { team: 'payments' } },
    { matchExpressions: [{ key: 'tier', operator: 'In', values: ['api'] }] },
  ),
);

/** POST /v1/halts with a selector and DELETE /v1/halts/{id}, with a bearer token. */
function fleetBearerRequests(context: DoorContext): fc.Arbitrary<CleanRequest> {
  const namespace = fc.option(fc.constantFrom(context.pipeline.namespace, 'payments'), {
    nil: undefined,
  });
  const halt = fc
    .tuple(selector, namespace, haltBody, callerArb(context))
    .map(([sel, ns, body, c]) => ({
      method: 'POST',
      path: '/v1/halts',
      headers: [['content-type', 'application/json'], ...c.b.headers] as [string, string][],
      body: Buffer.from(
        JSON.stringify({ ...body, selector: sel, ...(ns === undefined ? {} : { namespace: ns }) }),
      ),
      validity: c.b.validity,
      label: `fleet-halt ${c.ci ? 'ci' : 'sso'} ${c.b.label}`,
      expected: answer(c.ci, c.t, { ns: context.pipeline.namespace, env: body.environment }, 201),
    }));
  const lift = fc.tuple(haltId, callerArb(context)).map(([id, c]) => ({
    method: 'DELETE',
    path: `/v1/halts/${id}`,
    headers: c.b.headers,
    body: Buffer.alloc(0),
    validity: c.b.validity,
    label: `fleet-lift ${c.ci ? 'ci' : 'sso'} ${c.b.label}`,
    expected: answer(c.ci, c.t, { ns: context.pipeline.namespace, env: 'prod' }, 200),
  }));
  return fc.oneof(halt, lift);
}

/** What a halt statement says: halt one Pipeline, halt a selector's, or lift by id. */
function statementClaims(context: DoorContext) {
  const { namespace, name } = context.pipeline;
  return fc.oneof(
    fc.constant({
      claims: {
        action: 'halt',
        pipeline: `${namespace}/${name}`,
        environment: 'prod',
        reason: 'incident 42',
      },
      ok: 201,
    }),
    fc.constant({
      claims: { action: 'halt', selector: 'team=payments', namespace, reason: 'freeze' },
      ok: 201,
    }),
    fc.constant({ claims: { action: 'lift', haltId: 'h-1' }, ok: 200 }),
    // Not a halt's shape nor a lift's (both a Pipeline and a selector): no statement at all.
    fc.constant({
      claims: { action: 'halt', pipeline: `${namespace}/${name}`, selector: 'a=b', reason: 'x' },
      ok: 0,
    }),
  );
}

/** POST /v1/halts with a halt statement (application/jose) by alice or bob. */
function fleetStatementRequests(context: DoorContext): fc.Arbitrary<CleanRequest> {
  const { alice, bob, attackerEd, attackerEc } = context.keys;
  const signer = fc.constantFrom(
    { who: alice, attacker: attackerEd },
    { who: bob, attacker: attackerEc },
  );
  return fc.tuple(signer, statementClaims(context)).chain(([s, { claims, ok }]) =>
    tokenArb(
      { signer: s.who, attacker: s.attacker, typ: HALT_STATEMENT_TYPE },
      HALT_STATEMENT_PROFILE,
      (now) => ({
        sub: s.who.kid,
        ...claims,
        iat: now,
        exp: now + 300,
        jti: randomUUID(),
      }),
    ).map((t) => ({
      method: 'POST',
      path: '/v1/halts',
      headers: [['content-type', 'application/jose']] as [string, string][],
      body: Buffer.from(t.token),
      // A misshapen statement is none; `sub` must name its signer (the header's `kid`).
      validity: worst(t.validity, ok === 0 || t.claims.sub !== s.who.kid ? 'invalid' : 'valid'),
      label: `statement:${s.who.kid}:${claims.action}${ok === 0 ? ':misshapen' : ''} ${t.label}`,
      expected: { status: ok, effect: true },
    })),
  );
}

/** Every request of the doors across Pipelines. */
export function fleetHaltRequests(context: DoorContext): fc.Arbitrary<CleanRequest> {
  return fc.oneof(fleetBearerRequests(context), fleetStatementRequests(context));
}
