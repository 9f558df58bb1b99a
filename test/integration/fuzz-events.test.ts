/**
 * Fuzzes the Flux events door, POST /v1/events/{cluster}: Flux's generic-hmac requests with
 * right and wrong signatures, bearer JWTs (valid, forged, expired, bound to another cluster),
 * both at once (X-Signature decides), none, around valid events, with noise and broken framing
 * (support/fuzz). Only a valid credential for the URL's cluster may queue a hint; afterwards
 * the door still takes Flux's own byte-exact request and a signed HelmRelease event.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fuzzTimeoutMs } from '../support/fuzz/budget.js';
import {
  expectLogsFree,
  expectStillWorks,
  fuzzDoor,
  recorderTarget,
  type FuzzTarget,
} from '../support/fuzz/check.js';
import { startDoors, type DoorsApp } from '../support/fuzz/doors-app.js';
import { fuzzCases } from '../support/fuzz/noise.js';
import { eventRequests } from '../support/fuzz/requests-hmac.js';
import { VECTOR } from '../support/ingress-harness.js';

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

describe('fuzzing POST /v1/events/{cluster}', () => {
  it(
    'queues a hint only for a valid credential of the URL cluster and answers every request as documented',
    async () => {
      const keys = doors.context.clusters.flatMap((c) => c.keys);
      const report = await fuzzDoor(
        'flux events',
        target,
        fuzzCases(eventRequests(doors.context), keys),
        RUNS,
      );
      expect(report.runs).toBe(Number(process.env.FUZZ_RUNS ?? report.runs));
    },
    fuzzTimeoutMs(),
  );

  it('still takes Flux’s byte-exact request and a signed HelmRelease event afterwards', async () => {
    const headers = Object.entries(VECTOR.headers);
    await expectStillWorks(
      target,
      { method: 'POST', path: '/v1/events/dev', headers, body: VECTOR.body },
      { status: 202, effect: false },
    );
    const body = Buffer.from(
      '{"involvedObject":{"kind":"HelmRelease","name":"podinfo","namespace":"apps"}}',
    );
    const signature = `sha256=${createHmac('sha256', VECTOR.key).update(body).digest('hex')}`;
    const signed = [
      ['content-type', 'application/json'],
      ['x-signature', signature],
    ] as const;
    await expectStillWorks(
      target,
      { method: 'POST', path: '/v1/events/dev', headers: signed, body },
      { status: 202, effect: true },
    );
  });
});
