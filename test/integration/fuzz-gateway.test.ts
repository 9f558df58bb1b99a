/**
 * Every door fuzzed end to end, on a whole gateway against kube-sim (support/fuzz): requests
 * without a valid credential, generated for each door (Flux events, the legacy webhook and
 * approval, approvals, CI triggers, halts, halts across Pipelines, the status API, the view
 * and its streams) with noise and broken framing, must never move the stored Pipeline or the
 * gateway's queues, nor cost a single request to any cluster. Callers whose tokens verify,
 * whatever else they claim, get no 5xx from the real authorizer and halters (a token expiring
 * after year 9999 is refused, never a 500: no record can keep that expiry). Afterwards a signed event still
 * makes the gateway read the cluster, and a person's halt and lift still reach the status.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signBody } from '../../src/auth/hmac.js';
import { fuzzTimeoutMs } from '../support/fuzz/budget.js';
import { checkCase, fuzzDoor, type FuzzTarget } from '../support/fuzz/check.js';
import {
  AUDIENCE,
  CI_CLAIMS,
  CI_ISSUER,
  SSO_ISSUER,
  hmacKeys,
  secretsOf,
} from '../support/fuzz/doors-app.js';
import { startGatewayDoors, type GatewayDoors } from '../support/fuzz/gateway-doors.js';
import { honestHeader, signCompact } from '../support/fuzz/jws.js';
import { fuzzCases, type CleanRequest } from '../support/fuzz/noise.js';
import { approvalRequests, ciRequests } from '../support/fuzz/requests-approvals.js';
import { fleetHaltRequests, haltRequests } from '../support/fuzz/requests-halts.js';
import {
  eventRequests,
  legacyApprovalRequests,
  legacyWebhookRequests,
} from '../support/fuzz/requests-hmac.js';
import { statusApiRequests, viewRequests } from '../support/fuzz/requests-view.js';
import {
  APP_NAME,
  HR_RESOURCE,
  eventually,
  pipelineOf,
  startTestFleet,
  type TestFleet,
} from '../support/gateway-harness.js';

/** CI's budget: fewer runs than in process, each costs a real gateway's work. */
const RUNS = 120;
const VIEW_RUNS = 50;
const VALID_RUNS = 100;
const NS = 'fuzz';

let fleet: TestFleet;
let doors: GatewayDoors;
beforeAll(async () => {
  fleet = await startTestFleet();
  doors = await startGatewayDoors(fleet, NS);
});
afterAll(async () => {
  await doors.close();
  await fleet.close();
});

function targetOn(port: number, kind: FuzzTarget['kind']): FuzzTarget {
  return { port, kind, secrets: secretsOf(doors.context), observe: () => doors.observe() };
}

/** Only requests whose credential is invalid, after noise: none of them may change anything. */
function strangers(requests: fc.Arbitrary<CleanRequest>) {
  return fuzzCases(requests, hmacKeys(doors.context)).filter((c) => c.validity === 'invalid');
}

/** A person's fresh SSO bearer header (alice). */
function person(): [string, string] {
  const { sso } = doors.context.keys;
  const t = Math.floor(Date.now() / 1000);
  const claims = {
    iss: SSO_ISSUER,
    aud: AUDIENCE,
    sub: 'alice-sub',
    iat: t,
    exp: t + 300,
    jti: randomUUID(),
  };
  return ['authorization', `Bearer ${signCompact(honestHeader(sso), claims, sso)}`];
}

describe('every door of a whole gateway on kube-sim, fuzzed', () => {
  it(
    'moves no Pipeline, no queue and no cluster read through the API doors',
    async () => {
      const { context } = doors;
      const known = { evaluated: [`${NS}/${APP_NAME}`] };
      const requests = fc.oneof(
        eventRequests(context),
        legacyWebhookRequests(context),
        legacyApprovalRequests(context),
        approvalRequests(context),
        ciRequests(context),
        haltRequests(context),
        fleetHaltRequests(context),
        statusApiRequests(context, known),
      );
      const port = Number(new URL(doors.gw.url).port);
      await fuzzDoor('gateway doors on kube-sim', targetOn(port, 'api'), strangers(requests), RUNS);
    },
    fuzzTimeoutMs(),
  );

  it(
    'shows nothing and reads nothing through the view',
    async () => {
      const known = { evaluated: [`${NS}/${APP_NAME}`] };
      await fuzzDoor(
        'gateway view on kube-sim',
        targetOn(doors.uiPort, 'view'),
        strangers(viewRequests(doors.context, known)),
        VIEW_RUNS,
      );
    },
    fuzzTimeoutMs(),
  );

  it(
    'answers every caller of the authorization doors without a 5xx, whatever its token claims',
    async () => {
      const { context } = doors;
      // Credentials signed right or wrong, with claims of every shape: the ones that verify are
      // judged by the real authorizer and halters, which read and write the Pipeline (so only
      // the answers are checked here, and a 401 for every credential the model refuses).
      const requests = fc.oneof(
        approvalRequests(context),
        ciRequests(context),
        haltRequests(context),
        fleetHaltRequests(context),
      );
      const known = fuzzCases(requests, hmacKeys(context)).map(
        ({ expected: _expected, ...c }) => c,
      );
      const port = Number(new URL(doors.gw.url).port);
      const answersOnly: FuzzTarget = {
        ...targetOn(port, 'api'),
        observe: () => ({ effects: [], reads: 0 }),
      };
      await fuzzDoor('gateway authorizations on kube-sim', answersOnly, known, VALID_RUNS);
    },
    fuzzTimeoutMs(),
  );

  it('refuses a person’s or a job’s token expiring after year 9999, recording nothing (found by fuzzing)', async () => {
    const { sso, ci } = doors.context.keys;
    const t = Math.floor(Date.now() / 1000);
    const token = (signer: typeof sso, claims: object) =>
      signCompact(
        honestHeader(signer),
        { aud: AUDIENCE, iat: t, exp: 1e308, jti: randomUUID(), ...claims },
        signer,
      );
    const sent = [
      [
        `/v1/pipelines/${NS}/${APP_NAME}/halts`,
        token(sso, { iss: SSO_ISSUER, sub: 'alice-sub' }),
        '{"environment":"prod","reason":"x"}',
      ],
      [
        `/v1/pipelines/${NS}/${APP_NAME}/environments/prod/approvals`,
        token(sso, { iss: SSO_ISSUER, sub: 'alice-sub' }),
        '{"revision":"6.5.0","decision":"approve"}',
      ],
      [
        `/v1/pipelines/${NS}/${APP_NAME}/environments/prod/promotions`,
        token(ci, { iss: CI_ISSUER, sub: 'repo', ...CI_CLAIMS }),
        '{"revision":"6.5.0"}',
      ],
    ] as const;
    const port = Number(new URL(doors.gw.url).port);
    for (const [path, bearer, body] of sent) {
      const headers = [
        ['content-type', 'application/json'],
        ['authorization', `Bearer ${bearer}`],
      ] as const;
      const request = {
        method: 'POST',
        path,
        headers,
        body: Buffer.from(body),
        wire: { kind: 'fetch' as const },
      };
      await checkCase(targetOn(port, 'api'), {
        request,
        validity: 'invalid',
        clean: true,
        label: 'exp 1e308',
      });
    }
  });

  it('still reads the cluster for a signed event, and records a person’s halt and lift', async () => {
    const dev = fleet.env('dev').requests;
    const reads = () => dev.count({ verb: 'get', resource: HR_RESOURCE, namespace: NS });
    const before = reads();
    const body = Buffer.from(
      JSON.stringify({ involvedObject: { kind: 'HelmRelease', name: APP_NAME, namespace: NS } }),
    );
    const event = await fetch(`${doors.gw.url}/v1/events/dev`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-signature': signBody(body, fleet.key('dev')),
      },
      body,
    });
    expect(event.status).toBe(202);
    await eventually(() => reads() > before);
    const halted = await fetch(`${doors.gw.url}/v1/pipelines/${NS}/${APP_NAME}/halts`, {
      method: 'POST',
      headers: Object.fromEntries([['content-type', 'application/json'], person()]),
      body: JSON.stringify({ environment: 'prod', reason: 'after fuzzing' }),
    });
    expect(halted.status).toBe(201);
    const { halt } = (await halted.json()) as { halt: { id: string } };
    expect(pipelineOf(fleet, NS).status?.halts?.map((h) => h.id)).toContain(halt.id);
    const lifted = await fetch(`${doors.gw.url}/v1/pipelines/${NS}/${APP_NAME}/halts/${halt.id}`, {
      method: 'DELETE',
      headers: Object.fromEntries([person()]),
    });
    expect(lifted.status).toBe(200);
  });
});
