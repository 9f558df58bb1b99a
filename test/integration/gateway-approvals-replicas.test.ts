/**
 * Approvals across replicas and restarts, through real HTTP against kube-sim: the status is
 * the shared state, so a statement sent to every replica counts once and promotes once, and an
 * approval recorded by a replica that then goes away still counts.
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
  promoteEvents,
  recordOf,
  rollOut,
  startTestFleet,
  waitSteady,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';

let fleet: TestFleet;
let alice: TestApprover;
let bob: TestApprover;
let config: { approvals: { approvers: ReturnType<typeof approverConfig> } };
const running: RunningGateway[] = [];

async function replica(instanceId: string): Promise<RunningGateway> {
  const gw = await launchGateway(fleet, { instanceId, config });
  running.push(gw);
  return gw;
}

beforeAll(async () => {
  [alice, bob] = await Promise.all([approver('alice'), approver('bob')]);
  config = { approvals: { approvers: approverConfig([alice, bob]) } };
  fleet = await startTestFleet();
});
afterAll(async () => {
  await Promise.all(running.map((g) => g.close()));
  await fleet.close();
});

async function prodWaits(ns: string, replicas: RunningGateway[], minApprovals: number) {
  createApp(fleet, ns, { prodPromotion: { approval: { minApprovals } } });
  await waitSteady(fleet, replicas, ns);
  rollOut(fleet.dev, ns, '6.6.0');
  rollOut(fleet.staging, ns, '6.6.0');
  for (const r of replicas) {
    await r.gateway.resync();
    await r.gateway.idle();
  }
}

const prodEvents = (ns: string) =>
  promoteEvents(fleet, ns).filter((e) => e.metadata.annotations?.environment === 'prod');

describe('approvals across replicas', () => {
  it('count a statement sent to two replicas at once once, and promote once', async () => {
    const ns = 'replicas-approve';
    const [a, b] = await Promise.all([replica('replica-a'), replica('replica-b')]);
    await prodWaits(ns, [a, b], 1);
    const jws = await statement(alice, {
      pipeline: `${ns}/${APP_NAME}`,
      environment: 'prod',
      revision: '6.6.0',
    });
    const answers = await Promise.all([a, b].map((r) => postStatement(r.url, ns, 'prod', jws)));
    expect(answers.map((r) => r.status).sort()).toEqual([202, 409]);
    await eventually(() => {
      expect(recordOf(fleet, ns, 'prod')).toMatchObject({ revision: '6.6.0', phase: 'Succeeded' });
    });
    await Promise.all([a.gateway.idle(), b.gateway.idle()]);
    await Promise.all([a.gateway.resync(), b.gateway.resync()]);
    await Promise.all([a.gateway.idle(), b.gateway.idle()]);
    expect(prodEvents(ns)).toHaveLength(1);
    expect(pipelineOf(fleet, ns).status?.environments?.prod?.approvals).toHaveLength(1);
    await Promise.all([a.close(), b.close()]);
  });

  it('keep an approval recorded by a replica that restarts before the promotion', async () => {
    const ns = 'replicas-restart';
    const first = await replica('before-restart');
    await prodWaits(ns, [first], 2);
    const one = await statement(alice, {
      pipeline: `${ns}/${APP_NAME}`,
      environment: 'prod',
      revision: '6.6.0',
    });
    expect(await (await postStatement(first.url, ns, 'prod', one)).json()).toMatchObject({
      state: 'waiting',
    });
    await first.close();

    const second = await replica('after-restart');
    await second.gateway.idle();
    expect(recordOf(fleet, ns, 'prod')).toBeUndefined();
    expect(second.gateway.view({ namespace: ns, name: APP_NAME })?.decisions[2]).toMatchObject({
      outcome: 'WaitingApproval',
      gate: { approvedBy: ['alice'], summary: '1 of 2 approvals' },
    });
    // The restarted replica still refuses the first statement as used...
    expect((await postStatement(second.url, ns, 'prod', one)).status).toBe(409);
    // ...and counts it with a second approver's, which promotes.
    const two = await statement(bob, {
      pipeline: `${ns}/${APP_NAME}`,
      environment: 'prod',
      revision: '6.6.0',
    });
    expect(await (await postStatement(second.url, ns, 'prod', two)).json()).toMatchObject({
      state: 'approved',
    });
    await eventually(() => {
      expect(recordOf(fleet, ns, 'prod')).toMatchObject({ revision: '6.6.0', phase: 'Succeeded' });
    });
    expect(prodEvents(ns)).toHaveLength(1);
  });
});
