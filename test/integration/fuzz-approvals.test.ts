/**
 * Fuzzes the approvals door, POST /v1/pipelines/{ns}/{name}/environments/{env}/approvals
 * (support/fuzz): approvers' signed statements (application/jose) that are valid, forged
 * (another key, `alg: none`, HS256 with the public key, an unknown `kid`, another `typ`, cut,
 * spliced), expired, not yet valid, too long-lived, for another Pipeline or environment, or
 * claiming another approver; and SSO tokens with JSON bodies, right and wrong, with noise and
 * broken framing. Only a valid credential reaches the authorizer; afterwards both kinds of
 * approval are still taken.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { STATEMENT_TYPE } from '../../src/auth/statement.js';
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
import { approvalRequests } from '../support/fuzz/requests-approvals.js';

/** CI's budget for this door (FUZZ_RUNS or FUZZ_SECONDS run it longer). */
const RUNS = 200;

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

const PATH = '/v1/pipelines/apps/podinfo/environments/prod/approvals';
const now = () => Math.floor(Date.now() / 1000);

describe('fuzzing POST .../environments/{env}/approvals', () => {
  it(
    'submits an authorization only for a valid statement or SSO token',
    async () => {
      await fuzzDoor(
        'approvals',
        target,
        fuzzCases(approvalRequests(doors.context), hmacKeys(doors.context)),
        RUNS,
      );
    },
    fuzzTimeoutMs(),
  );

  it('still takes a signed statement and an SSO approval afterwards', async () => {
    const { alice, sso } = doors.context.keys;
    const claims = {
      sub: 'alice',
      pipeline: 'apps/podinfo',
      environment: 'prod',
      revision: '6.6.0',
      decision: 'approve',
    };
    const statement = () =>
      signCompact(
        honestHeader(alice, STATEMENT_TYPE),
        { ...claims, iat: now(), exp: now() + 300, jti: randomUUID() },
        alice,
      );
    const jose = [['content-type', 'application/jose']] as const;
    await expectStillWorks(
      target,
      { method: 'POST', path: PATH, headers: jose, body: Buffer.from(statement()) },
      { status: 202, effect: true },
    );
    const token = signCompact(
      honestHeader(sso),
      {
        iss: SSO_ISSUER,
        aud: AUDIENCE,
        sub: 'alice-sub',
        iat: now(),
        exp: now() + 300,
        jti: randomUUID(),
      },
      sso,
    );
    const headers = [
      ['content-type', 'application/json'],
      ['authorization', `Bearer ${token}`],
    ] as const;
    const body = Buffer.from('{"revision":"6.6.0","decision":"approve"}');
    await expectStillWorks(
      target,
      { method: 'POST', path: PATH, headers, body },
      { status: 202, effect: true },
    );
  });
});
