/**
 * Fuzzes the stop-the-line doors of one Pipeline (support/fuzz): POST
 * /v1/pipelines/{ns}/{name}/halts and DELETE .../halts/{id}, with people's SSO tokens and CI
 * jobs' tokens, valid, forged, expired, for another audience, a CI job a policy does not cover
 * (403), with noise and broken framing. Only a valid token reaches the halter (and a CI job's
 * only where its policy covers it); afterwards a halt and a lift still work.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, it } from 'vitest';
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
import { haltRequests } from '../support/fuzz/requests-halts.js';

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

/** A person's fresh SSO bearer header (each token is used once). */
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

describe('fuzzing the halts of one Pipeline', () => {
  it(
    'halts or lifts only for a valid token a policy allows',
    async () => {
      await fuzzDoor(
        'halts',
        target,
        fuzzCases(haltRequests(doors.context), hmacKeys(doors.context)),
        RUNS,
      );
    },
    fuzzTimeoutMs(),
  );

  it('still halts and lifts afterwards', async () => {
    const body = Buffer.from('{"environment":"prod","reason":"incident 42"}');
    const halt = { method: 'POST', path: '/v1/pipelines/apps/podinfo/halts', body };
    await expectStillWorks(
      target,
      { ...halt, headers: [['content-type', 'application/json'], person()] },
      { status: 201, effect: true },
    );
    const lift = {
      method: 'DELETE',
      path: '/v1/pipelines/apps/podinfo/halts/h-1',
      body: Buffer.alloc(0),
    };
    await expectStillWorks(target, { ...lift, headers: [person()] }, { status: 200, effect: true });
  });
});
