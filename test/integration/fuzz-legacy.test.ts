/**
 * Fuzzes the two doors signed with a Pipeline's legacy `hmac-key` (support/fuzz): weave's
 * pipeline-controller webhook, POST /promotion/{ns}/{pipeline}/{env}, and weave's approval,
 * POST /approval/{ns}/{pipeline}/{env}/{revision} (an HMAC of the empty body). Right and
 * wrong signatures, Pipelines with and without a key, noise and broken framing: only the
 * Pipeline's own key hints it or approves, and both doors still work afterwards.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, it } from 'vitest';
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
import { legacyApprovalRequests, legacyWebhookRequests } from '../support/fuzz/requests-hmac.js';

/** CI's budget for each door (FUZZ_RUNS or FUZZ_SECONDS run them longer). */
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

const sign = (body: Buffer) =>
  `sha256=${createHmac('sha256', doors.context.legacyKey).update(body).digest('hex')}`;

describe('fuzzing the legacy doors', () => {
  it(
    'hints a Pipeline only for its own key (POST /promotion/...)',
    async () => {
      const cases = fuzzCases(legacyWebhookRequests(doors.context), [doors.context.legacyKey]);
      await fuzzDoor('legacy webhook', target, cases, RUNS);
      const body = Buffer.from('{"involvedObject":{"kind":"HelmRelease"}}');
      const headers = [
        ['content-type', 'application/json'],
        ['x-signature', sign(body)],
      ] as const;
      await expectStillWorks(
        target,
        { method: 'POST', path: '/promotion/apps/podinfo/prod', headers, body },
        { status: 202, effect: true },
      );
    },
    fuzzTimeoutMs(),
  );

  it(
    'approves only with the Pipeline’s own key (POST /approval/...)',
    async () => {
      const cases = fuzzCases(legacyApprovalRequests(doors.context), [doors.context.legacyKey]);
      await fuzzDoor('legacy approval', target, cases, RUNS);
      const headers = [['x-signature', sign(Buffer.alloc(0))]] as const;
      const path = '/approval/apps/podinfo/prod/6.6.0';
      await expectStillWorks(
        target,
        { method: 'POST', path, headers, body: Buffer.alloc(0) },
        { status: 202, effect: true },
      );
    },
    fuzzTimeoutMs(),
  );
});
