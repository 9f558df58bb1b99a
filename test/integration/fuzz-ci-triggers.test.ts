/**
 * Fuzzes the CI trigger door, POST /v1/pipelines/{ns}/{name}/environments/{env}/promotions
 * (support/fuzz): CI OIDC tokens valid, forged, expired, for another audience or issuer,
 * without `jti`, whose claims a CI policy matches or not (403, nothing submitted), and
 * people's SSO tokens (no CI issuer vouches for them), with noise and broken framing. Only a
 * valid token a policy covers reaches the authorizer; afterwards the door still works.
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
  CI_CLAIMS,
  CI_ISSUER,
  hmacKeys,
  startDoors,
  type DoorsApp,
} from '../support/fuzz/doors-app.js';
import { honestHeader, signCompact } from '../support/fuzz/jws.js';
import { fuzzCases } from '../support/fuzz/noise.js';
import { ciRequests } from '../support/fuzz/requests-approvals.js';

/** CI's budget for this door (FUZZ_RUNS or FUZZ_SECONDS run it longer). */
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

describe('fuzzing POST .../environments/{env}/promotions', () => {
  it(
    'submits an authorization only for a valid CI token a policy covers',
    async () => {
      await fuzzDoor(
        'ci triggers',
        target,
        fuzzCases(ciRequests(doors.context), hmacKeys(doors.context)),
        RUNS,
      );
    },
    fuzzTimeoutMs(),
  );

  it('still takes a CI job’s trigger afterwards', async () => {
    const { ci } = doors.context.keys;
    const t = Math.floor(Date.now() / 1000);
    const claims = {
      iss: CI_ISSUER,
      aud: AUDIENCE,
      sub: 'repo:acme/podinfo',
      ...CI_CLAIMS,
      iat: t,
      exp: t + 300,
      jti: randomUUID(),
    };
    const headers = [
      ['content-type', 'application/json'],
      ['authorization', `Bearer ${signCompact(honestHeader(ci), claims, ci)}`],
    ] as const;
    const path = '/v1/pipelines/apps/podinfo/environments/prod/promotions';
    await expectStillWorks(
      target,
      { method: 'POST', path, headers, body: Buffer.from('{"revision":"6.6.0"}') },
      { status: 202, effect: true },
    );
  });
});
