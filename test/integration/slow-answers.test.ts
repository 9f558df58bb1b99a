/**
 * A request the gateway takes longer than `server.requestTimeoutMs` to answer still gets its
 * answer: that bound is on receiving the request (a slow client gets 408), never a hang-up of
 * a connection whose request is being worked on. Real sockets, kube-sim answering every
 * Pipeline call slowly while an approval is recorded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  approver,
  approverConfig,
  postStatement,
  statement,
  type TestApprover,
} from '../support/authorizations.js';
import {
  APP_NAME,
  createApp,
  eventually,
  launchGateway,
  pipelineOf,
  recordOf,
  startTestFleet,
  waitSteady,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';
import { announceRollout } from '../support/policy-harness.js';

const NS = 'slow-answers';
const REQUEST_TIMEOUT_MS = 1_000;
let fleet: TestFleet;
let alice: TestApprover;
let gw: RunningGateway;

beforeAll(async () => {
  fleet = await startTestFleet();
  alice = await approver('alice');
  createApp(fleet, NS, { prodPromotion: { approval: { minApprovals: 1 } } });
  gw = await launchGateway(fleet, {
    config: {
      server: { host: '127.0.0.1', port: 0, requestTimeoutMs: REQUEST_TIMEOUT_MS },
      approvals: { approvers: approverConfig([alice]) },
    },
  });
  await waitSteady(fleet, [gw], NS);
});
afterAll(async () => {
  await gw.close();
  await fleet.close();
});

describe('an answer that takes longer than server.requestTimeoutMs', () => {
  it('is given on the same connection, not cut', async () => {
    await announceRollout(fleet, [gw], NS, 'dev', '6.6.0');
    await eventually(() => recordOf(fleet, NS, 'staging')?.phase === 'Succeeded');
    await announceRollout(fleet, [gw], NS, 'staging', '6.6.0');
    await eventually(
      () => pipelineOf(fleet, NS).status?.environments?.prod?.waitingApproval?.revision === '6.6.0',
    );
    // Every Pipeline call now takes twice the request timeout: recording the approval does too.
    await fleet.management.faults.set({
      latency: { fixedMs: 2 * REQUEST_TIMEOUT_MS, resources: ['pipelines'] },
    });
    try {
      const jws = await statement(alice, {
        pipeline: `${NS}/${APP_NAME}`,
        environment: 'prod',
        revision: '6.6.0',
      });
      const started = performance.now();
      const answer = await postStatement(gw.url, NS, 'prod', jws);
      expect(performance.now() - started).toBeGreaterThan(REQUEST_TIMEOUT_MS);
      expect(answer.status, await answer.clone().text()).toBe(202);
    } finally {
      await fleet.management.faults.clear('latency');
    }
    await eventually(() => recordOf(fleet, NS, 'prod')?.phase === 'Succeeded', {
      timeoutMs: 20_000,
    });
  }, 60_000);
});
