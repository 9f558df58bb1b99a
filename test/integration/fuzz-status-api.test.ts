/**
 * Fuzzes the status API, GET /v1/pipelines/{ns}/{name} (support/fuzz): readers' JWTs valid,
 * forged, expired, for another audience, with `pipelines` claims of every shape, for Pipelines
 * evaluated, held but not evaluated yet (503 NotEvaluated with Retry-After), absent or out of
 * scope (the same 404), and paths that are no names, with noise and broken framing. No view is
 * read before the token is verified; a signed token whose `sub` is not a string is refused
 * like any bad credential, never a 500; afterwards a reader still gets the view.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fuzzTimeoutMs } from '../support/fuzz/budget.js';
import {
  checkCase,
  expectLogsFree,
  expectStillWorks,
  fuzzDoor,
  recorderTarget,
  type FuzzTarget,
} from '../support/fuzz/check.js';
import {
  AUDIENCE,
  ISSUER,
  hmacKeys,
  startDoors,
  type DoorsApp,
} from '../support/fuzz/doors-app.js';
import { honestHeader, signCompact } from '../support/fuzz/jws.js';
import { fuzzCases } from '../support/fuzz/noise.js';
import { statusApiRequests } from '../support/fuzz/requests-view.js';

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

describe('fuzzing GET /v1/pipelines/{ns}/{name}', () => {
  it(
    'reads a view only for a verified reader and answers 200, 404 or 503 NotEvaluated as documented',
    async () => {
      const known = { evaluated: ['apps/podinfo'], held: 'apps/fresh' };
      await fuzzDoor(
        'status api',
        target,
        fuzzCases(statusApiRequests(doors.context, known), hmacKeys(doors.context)),
        RUNS,
      );
    },
    fuzzTimeoutMs(),
  );

  it('refuses a signed token whose `sub` is no string, as any bad credential (found by fuzzing)', async () => {
    const { api } = doors.context.keys;
    const t = Math.floor(Date.now() / 1000);
    for (const sub of [null, 42, ['reader'], { id: 'reader' }]) {
      const claims = { iss: ISSUER, aud: AUDIENCE, sub, pipelines: ['*'], iat: t, exp: t + 300 };
      const headers = [
        ['authorization', `Bearer ${signCompact(honestHeader(api), claims, api)}`],
      ] as const;
      const request = {
        method: 'GET',
        path: '/v1/pipelines/apps/podinfo',
        headers,
        body: Buffer.alloc(0),
        wire: { kind: 'fetch' as const },
      };
      await checkCase(target, {
        request,
        validity: 'invalid',
        clean: true,
        label: `sub ${JSON.stringify(sub)}`,
      });
    }
  });

  it('still answers a reader afterwards', async () => {
    const { api } = doors.context.keys;
    const t = Math.floor(Date.now() / 1000);
    const claims = {
      iss: ISSUER,
      aud: AUDIENCE,
      sub: 'reader',
      pipelines: ['apps/*'],
      iat: t,
      exp: t + 300,
      jti: randomUUID(),
    };
    const headers = [
      ['authorization', `Bearer ${signCompact(honestHeader(api), claims, api)}`],
    ] as const;
    const reads = doors.recorder.reads;
    const read = { method: 'GET', headers, body: Buffer.alloc(0) };
    await expectStillWorks(
      target,
      { ...read, path: '/v1/pipelines/apps/podinfo' },
      { status: 200, effect: false },
    );
    await expectStillWorks(
      target,
      { ...read, path: '/v1/pipelines/apps/fresh' },
      { status: 503, effect: false },
    );
    expect(doors.recorder.reads).toBeGreaterThan(reads);
  });
});
