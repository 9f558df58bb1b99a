/**
 * Fuzzes the stop-the-line doors across Pipelines (support/fuzz): POST /v1/halts with a label
 * selector and a person's or a CI job's token, or with an approver's signed halt statement
 * (application/jose: halt one Pipeline, halt a selector's, lift by id; forged, expired,
 * misshapen), and DELETE /v1/halts/{id}, with noise and broken framing. Only a valid
 * credential reaches the halters; afterwards a selector halt, a signed halt and a lift still work.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { HALT_STATEMENT_TYPE } from '../../src/auth/halt-statement.js';
import { fuzzTimeoutMs } from '../support/fuzz/budget.js';
import {
  expectLogsFree,
  expectStillWorks,
  fuzzDoor,
  recorderTarget,
  type FuzzTarget,
} from '../support/fuzz/check.js';
import {
  AUDIENCE,
  SSO_ISSUER,
  hmacKeys,
  startDoors,
  type DoorsApp,
} from '../support/fuzz/doors-app.js';
import { honestHeader, signCompact } from '../support/fuzz/jws.js';
import { fuzzCases } from '../support/fuzz/noise.js';
import { fleetHaltRequests } from '../support/fuzz/requests-halts.js';

/** CI's budget for these doors (FUZZ_RUNS or FUZZ_SECONDS run them longer). */
const RUNS = 150;

let doors: DoorsApp;
let target: FuzzTarget;
beforeAll(async () => {
  doors = await startDoors();
  target = recorderTarget(doors, 'api');
});
afterAll(async () => {
  expectLogsFree(doors.logs, doors.secrets);
  await doors.close();
});

const now = () => Math.floor(Date.now() / 1000);

/** A person's fresh SSO bearer header. */
function person(): [string, string] {
  const { sso } = doors.context.keys;
  const claims = {
    iss: SSO_ISSUER,
    aud: AUDIENCE,
    sub: 'alice-sub',
    iat: now(),
    exp: now() + 300,
    jti: randomUUID(),
  };
  return ['authorization', `Bearer ${signCompact(honestHeader(sso), claims, sso)}`];
}

describe('fuzzing the halts across Pipelines', () => {
  it(
    'halts or lifts only for a valid token or halt statement',
    async () => {
      await fuzzDoor(
        'selector halts',
        target,
        fuzzCases(fleetHaltRequests(doors.context), hmacKeys(doors.context)),
        RUNS,
      );
    },
    fuzzTimeoutMs(),
  );

  it('still halts by selector and by statement, and lifts, afterwards', async () => {
    const body = Buffer.from(
      '{"selector":"team=payments","environment":"prod","reason":"incident 42"}',
    );
    const json = {
      method: 'POST',
      path: '/v1/halts',
      body,
      headers: [['content-type', 'application/json'], person()] as const,
    };
    await expectStillWorks(target, json, { status: 201, effect: true });
    const { alice } = doors.context.keys;
    const claims = {
      sub: 'alice',
      action: 'halt',
      selector: 'team=payments',
      reason: 'freeze',
      iat: now(),
      exp: now() + 300,
      jti: randomUUID(),
    };
    const statement = Buffer.from(
      signCompact(honestHeader(alice, HALT_STATEMENT_TYPE), claims, alice),
    );
    const signed = {
      method: 'POST',
      path: '/v1/halts',
      body: statement,
      headers: [['content-type', 'application/jose']] as const,
    };
    await expectStillWorks(target, signed, { status: 201, effect: true });
    const lift = {
      method: 'DELETE',
      path: '/v1/halts/h-1',
      body: Buffer.alloc(0),
      headers: [person()],
    };
    await expectStillWorks(target, lift, { status: 200, effect: true });
  });
});
