/**
 * Signed approvals through real HTTP against kube-sim: a gated prod waits, an approval of the
 * verified revision promotes it once, and no replay, forgery, wrong revision or moved-on
 * upstream can promote anything.
 */
import { randomUUID } from 'node:crypto';
import { SignJWT, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyRecords } from '../../src/cli/verify-approvals.js';
import { defaultConfig } from '../../src/config/load.js';
import type { ApprovalSpec } from '../../src/pipeline/pipeline-resource.js';
import {
  approver,
  approverConfig,
  postStatement,
  statement,
  type TestApprover,
} from '../support/authorizations.js';
import {
  APP_NAME,
  ENVIRONMENTS,
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
let gw: RunningGateway;
let alice: TestApprover;
let bob: TestApprover;
let carol: TestApprover;

beforeAll(async () => {
  [alice, bob, carol] = await Promise.all([
    approver('alice'),
    approver('bob', ['sre']),
    approver('carol'),
  ]);
  fleet = await startTestFleet();
  gw = await launchGateway(fleet, {
    config: { approvals: { approvers: approverConfig([alice, bob, carol]) } },
  });
});
afterAll(async () => {
  await gw.close();
  await fleet.close();
});

/** ns/podinfo with prod gated; dev and staging run `version`; prod waits for it. */
async function prodWaits(
  ns: string,
  version: string,
  gate: { manual?: boolean; approval?: ApprovalSpec },
) {
  createApp(fleet, ns, { prodPromotion: gate });
  await waitSteady(fleet, [gw], ns);
  rollOut(fleet.dev, ns, version);
  rollOut(fleet.staging, ns, version);
  await gw.gateway.resync();
  await gw.gateway.idle();
  await eventually(() => {
    expect(pipelineOf(fleet, ns).status?.environments?.prod?.waitingApproval).toMatchObject({
      revision: version,
    });
  });
}

function sign(who: TestApprover, ns: string, revision: string, extra = {}) {
  return statement(who, { pipeline: `${ns}/${APP_NAME}`, environment: 'prod', revision, ...extra });
}

function prodPromotions(ns: string) {
  return promoteEvents(fleet, ns).filter((e) => e.metadata.annotations?.environment === 'prod');
}

/**
 * Requests to the fleet, but for the Lease's renewals and the looks at the alerts and the
 * trains, each on its own clock.
 */
function totalRequests(): number {
  return ['management', ...ENVIRONMENTS].reduce((sum, name) => {
    const { total, byResource } = fleet.env(name).requests.snapshot();
    const background =
      (byResource['leases.coordination.k8s.io'] ?? 0) +
      (byResource['promotionalerts.notifications.promotion-gateway.dev'] ?? 0) +
      (byResource['promotiontrains.pipelines.promotion-gateway.dev'] ?? 0);
    return sum + total - background;
  }, 0);
}

describe('signed approvals', () => {
  it('lets a manual prod wait, then promotes the approved verified revision exactly once', async () => {
    const ns = 'appr-once';
    await prodWaits(ns, '6.6.0', { manual: true });
    const pending = pipelineOf(fleet, ns).status?.conditions?.find(
      (c) => c.type === 'PromotionPending',
    );
    expect(pending).toMatchObject({ status: 'True', reason: 'ApprovalRequired' });
    expect(gw.gateway.view({ namespace: ns, name: APP_NAME })?.decisions[2]).toMatchObject({
      outcome: 'WaitingApproval',
      gate: { required: 1, approvedBy: [], summary: '0 of 1 approval' },
    });

    const res = await postStatement(gw.url, ns, 'prod', await sign(alice, ns, '6.6.0'));
    expect(res.status).toBe(202);
    expect(await res.json()).toMatchObject({
      recorded: true,
      principal: 'alice',
      revision: '6.6.0',
      state: 'approved',
      gate: { summary: '1 of 1 approval' },
    });
    await eventually(() => {
      expect(recordOf(fleet, ns, 'prod')).toMatchObject({ revision: '6.6.0', phase: 'Succeeded' });
    });
    await gw.gateway.idle();
    expect(prodPromotions(ns)).toHaveLength(1);
    const stored = pipelineOf(fleet, ns).status?.environments?.prod?.approvals;
    expect(stored).toHaveLength(1);
    expect(stored?.[0]).toMatchObject({ principal: 'alice', kind: 'human', decision: 'approve' });
    expect(stored?.[0]?.statement).toMatch(/^ey[\w-]+\.[\w-]+\.[\w-]+$/);
    const events = fleet.management.list('v1', 'Event', ns) as { reason?: string }[];
    expect(events.filter((e) => e.reason === 'ApprovalRecorded')).toHaveLength(1);
    // The audit trail stands on its own: the stored statement verifies offline.
    const { authorizations } = defaultConfig({ approvals: { approvers: approverConfig([alice]) } });
    const verdicts = await verifyRecords(
      `${ns}/${APP_NAME}`,
      pipelineOf(fleet, ns).status,
      authorizations,
    );
    expect(verdicts.map((v) => v.result)).toEqual(['ok']);
  });

  it('refuses an approval of any other revision with NotWaiting, recording nothing', async () => {
    const ns = 'appr-other';
    await prodWaits(ns, '6.6.0', { manual: true });
    const res = await postStatement(gw.url, ns, 'prod', await sign(alice, ns, '6.5.9'));
    expect(res.status).toBe(409);
    const body = (await res.json()) as { code: string; message: string };
    expect(body.code).toBe('NotWaiting');
    expect(body.message).toContain('waiting for 6.6.0');
    await gw.gateway.idle();
    expect(pipelineOf(fleet, ns).status?.environments?.prod?.approvals).toBeUndefined();
    expect(recordOf(fleet, ns, 'prod')).toBeUndefined();
  });

  it('counts a statement once: sent again before or after the promotion it is Replayed', async () => {
    const ns = 'appr-replay';
    await prodWaits(ns, '6.6.0', { approval: { minApprovals: 2 } });
    const jws = await sign(alice, ns, '6.6.0');
    expect((await postStatement(gw.url, ns, 'prod', jws)).status).toBe(202);
    const again = await postStatement(gw.url, ns, 'prod', jws);
    expect(again.status).toBe(409);
    expect(((await again.json()) as { code: string }).code).toBe('Replayed');
    expect((await postStatement(gw.url, ns, 'prod', await sign(bob, ns, '6.6.0'))).status).toBe(
      202,
    );
    await eventually(() => {
      expect(recordOf(fleet, ns, 'prod')).toMatchObject({ revision: '6.6.0', phase: 'Succeeded' });
    });
    await gw.gateway.idle();
    expect((await postStatement(gw.url, ns, 'prod', jws)).status).toBe(409);
    await gw.gateway.idle();
    expect(prodPromotions(ns)).toHaveLength(1);
    expect(pipelineOf(fleet, ns).status?.environments?.prod?.approvals).toHaveLength(2);
  });

  it('needs distinct approvers for a quorum: the same one twice still waits', async () => {
    const ns = 'appr-quorum';
    await prodWaits(ns, '6.6.0', { approval: { minApprovals: 2 } });
    const first = await postStatement(gw.url, ns, 'prod', await sign(alice, ns, '6.6.0'));
    expect(await first.json()).toMatchObject({
      state: 'waiting',
      gate: { summary: '1 of 2 approvals' },
    });
    const twice = await postStatement(gw.url, ns, 'prod', await sign(alice, ns, '6.6.0'));
    expect(twice.status).toBe(202);
    expect(await twice.json()).toMatchObject({ state: 'waiting', gate: { approvedBy: ['alice'] } });
    await gw.gateway.idle();
    expect(recordOf(fleet, ns, 'prod')).toBeUndefined();
    const second = await postStatement(gw.url, ns, 'prod', await sign(bob, ns, '6.6.0'));
    expect(await second.json()).toMatchObject({ state: 'approved' });
    await eventually(() => {
      expect(recordOf(fleet, ns, 'prod')).toMatchObject({ revision: '6.6.0', phase: 'Succeeded' });
    });
  });

  it('refuses, with 403, an approver the gate does not list', async () => {
    const ns = 'appr-forbidden';
    await prodWaits(ns, '6.6.0', { approval: { approvers: ['group:sre'] } });
    const res = await postStatement(gw.url, ns, 'prod', await sign(carol, ns, '6.6.0'));
    expect(res.status).toBe(403);
    expect((await postStatement(gw.url, ns, 'prod', await sign(bob, ns, '6.6.0'))).status).toBe(
      202,
    );
  });

  it('lets a rejection block the revision; the next revision waits afresh', async () => {
    const ns = 'appr-reject';
    await prodWaits(ns, '6.6.0', { approval: { minApprovals: 1 } });
    const rejected = await postStatement(
      gw.url,
      ns,
      'prod',
      await sign(alice, ns, '6.6.0', { decision: 'reject', comment: 'breaks checkout' }),
    );
    expect(await rejected.json()).toMatchObject({ state: 'rejected', decision: 'reject' });
    expect((await postStatement(gw.url, ns, 'prod', await sign(bob, ns, '6.6.0'))).status).toBe(
      202,
    );
    await gw.gateway.resync();
    await gw.gateway.idle();
    expect(recordOf(fleet, ns, 'prod')).toBeUndefined();
    expect(gw.gateway.view({ namespace: ns, name: APP_NAME })?.decisions[2]).toMatchObject({
      outcome: 'Rejected',
      gate: { rejectedBy: 'alice' },
    });
    rollOut(fleet.dev, ns, '6.7.0');
    rollOut(fleet.staging, ns, '6.7.0');
    await gw.gateway.resync();
    await gw.gateway.idle();
    expect(pipelineOf(fleet, ns).status?.environments?.prod?.waitingApproval).toMatchObject({
      revision: '6.7.0',
    });
  });

  it('never promotes an approved revision once upstream has moved on, nor the new one', async () => {
    const ns = 'appr-moved';
    await prodWaits(ns, '6.6.0', { approval: { minApprovals: 2 } });
    expect((await postStatement(gw.url, ns, 'prod', await sign(alice, ns, '6.6.0'))).status).toBe(
      202,
    );
    rollOut(fleet.staging, ns, '6.7.0');
    rollOut(fleet.dev, ns, '6.7.0');
    const late = await postStatement(gw.url, ns, 'prod', await sign(bob, ns, '6.6.0'));
    expect(late.status).toBe(409);
    await gw.gateway.resync();
    await gw.gateway.idle();
    expect(recordOf(fleet, ns, 'prod')).toBeUndefined();
    expect(gw.gateway.view({ namespace: ns, name: APP_NAME })?.decisions[2]).toMatchObject({
      outcome: 'WaitingApproval',
      revision: '6.7.0',
      gate: { approvedBy: [] },
    });
  });
});

describe('forged, stale or misdirected statements', () => {
  const ns = 'appr-forged';
  beforeAll(async () => {
    await prodWaits(ns, '6.6.0', { manual: true });
  });

  async function forgeries(): Promise<[string, string][]> {
    const now = Math.floor(Date.now() / 1000);
    const stranger = await approver('alice');
    const valid = await sign(alice, ns, '6.6.0');
    const [header, payload] = valid.split('.') as [string, string, string];
    const altered = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<
      string,
      unknown
    >;
    altered.revision = '6.6.1';
    const rsa = await generateKeyPair('RS256');
    return [
      ['an unknown key', await sign(stranger, ns, '6.6.0')],
      ['an expired statement', await sign(alice, ns, '6.6.0', { iat: now - 600, exp: now - 60 })],
      ['exp beyond the maximum lifetime', await sign(alice, ns, '6.6.0', { exp: now + 3600 })],
      [
        'another environment than the path',
        await statement(alice, {
          pipeline: `${ns}/${APP_NAME}`,
          environment: 'staging',
          revision: '6.6.0',
        }),
      ],
      [
        'another pipeline than the path',
        await statement(alice, { pipeline: `${ns}/other`, environment: 'prod', revision: '6.6.0' }),
      ],
      [
        'a signature over other bytes',
        `${header}.${Buffer.from(JSON.stringify(altered)).toString('base64url')}.${valid.split('.')[2] ?? ''}`,
      ],
      [
        'alg none',
        `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'promotion-approval+jwt', kid: 'alice' })).toString('base64url')}.${payload}.`,
      ],
      [
        'another algorithm (RS256 with a key named alice)',
        await new SignJWT({
          pipeline: `${ns}/${APP_NAME}`,
          environment: 'prod',
          revision: '6.6.0',
          decision: 'approve',
        })
          .setProtectedHeader({ alg: 'RS256', typ: 'promotion-approval+jwt', kid: 'alice' })
          .setSubject('alice')
          .setIssuedAt()
          .setExpirationTime('5m')
          .setJti(randomUUID())
          .sign(rsa.privateKey),
      ],
      [
        'a plain JWT signed with the approver key',
        await new SignJWT({
          pipeline: `${ns}/${APP_NAME}`,
          environment: 'prod',
          revision: '6.6.0',
          decision: 'approve',
        })
          .setProtectedHeader({ alg: 'EdDSA', kid: 'alice' })
          .setSubject('alice')
          .setIssuedAt()
          .setExpirationTime('5m')
          .setJti(randomUUID())
          .sign(alice.privateKey),
      ],
    ];
  }

  it('refuses each with the same 401, records nothing and reads no cluster', async () => {
    await gw.gateway.idle();
    const before = totalRequests();
    for (const [what, jws] of await forgeries()) {
      const res = await postStatement(gw.url, ns, 'prod', jws);
      expect([what, res.status, await res.json()]).toEqual([
        what,
        401,
        { code: 'Unauthenticated', message: 'Authentication failed.' },
      ]);
    }
    expect(totalRequests()).toBe(before);
    expect(pipelineOf(fleet, ns).status?.environments?.prod?.approvals).toBeUndefined();
  });
});
