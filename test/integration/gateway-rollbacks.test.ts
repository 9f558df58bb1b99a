/**
 * Manual rollbacks through the real gateway (one replica, then two) on kube-sim, with SSO
 * tokens from a local OIDC issuer and the notification strategy: prod rolled back to the
 * previous revision it ran healthy, recorded (record, history, hold, Rollback* notification
 * facts), the rolled-back revision not promoted again while held; lifting the hold through the
 * other replica lets it promote once; a newer upstream revision promotes normally; bad requests
 * get their documented errors and change nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factsOf } from '../../src/notify/facts.js';
import { startIssuer, type TestIssuer } from '../support/authorizations.js';
import { announceRollout, apiViewer, type ApiViewer } from '../support/policy-harness.js';
import {
  createApp,
  eventually,
  launchGateway,
  pipelineOf,
  startTestFleet,
  waitSteady,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';
import {
  holdsOf,
  liftHold,
  promotedRevisions,
  recordAt,
  requestRollback,
  verifiedAt,
} from '../support/rollback-harness.js';
import type { ConfigInput } from '../../src/config/input.js';

const AUDIENCE = 'promotion-gateway';

let fleet: TestFleet;
let sso: TestIssuer;
let viewer: ApiViewer;

beforeAll(async () => {
  sso = await startIssuer('https://sso.example.com');
  fleet = await startTestFleet();
  viewer = await apiViewer();
});
afterAll(async () => {
  await fleet.close();
  await sso.close();
});

function config(): ConfigInput {
  return {
    jwt: viewer.jwt,
    approvals: {
      approvers: [
        { name: 'bob', oidcSubjects: [`${sso.issuer}#bob-sub`], groups: [] },
        { name: 'carol', oidcSubjects: [`${sso.issuer}#carol-sub`], groups: [] },
      ],
      oidc: { issuer: sso.issuer, audience: AUDIENCE, jwksUrl: sso.jwksUrl },
    },
  };
}

const bob = () => sso.token({ sub: 'bob-sub' });

describe.each([1, 2])('manual rollbacks with %i gateway replica(s)', (replicas) => {
  let gateways: RunningGateway[] = [];
  const replica = (i: number): RunningGateway => {
    const g = gateways[i];
    if (g === undefined) throw new Error(`no replica ${String(i)}`);
    return g;
  };
  const first = () => replica(0);
  const last = () => replica(gateways.length - 1);
  const idle = async () => {
    for (const g of gateways) await g.gateway.idle();
  };
  const rollsOut = (ns: string, env: 'dev' | 'staging' | 'prod', v: string) =>
    announceRollout(fleet, gateways, ns, env, v);

  const logLines: string[] = [];
  beforeAll(async () => {
    gateways = await Promise.all(
      Array.from({ length: replicas }, (_, i) =>
        launchGateway(fleet, {
          instanceId: `rollbacks-${replicas}-${i}`,
          config: config(),
          logLines,
        }),
      ),
    );
  });
  afterAll(async () => {
    await Promise.all(gateways.map((g) => g.close()));
  });

  /** 6.6.0 through dev, staging and prod, each rolled out as Flux would. */
  async function prodAt660(ns: string): Promise<void> {
    createApp(fleet, ns, { prodPromotion: { rollback: { approvers: ['bob', 'carol'] } } });
    await waitSteady(fleet, gateways, ns);
    await rollsOut(ns, 'dev', '6.6.0');
    await recordAt(fleet, ns, 'staging', '6.6.0');
    await rollsOut(ns, 'staging', '6.6.0');
    await recordAt(fleet, ns, 'prod', '6.6.0');
    await rollsOut(ns, 'prod', '6.6.0');
    await verifiedAt(fleet, ns, 'prod', '6.6.0');
  }

  /** Rolls prod back to 6.5.0 through the first replica and Flux applies it. */
  async function rolledBack(ns: string): Promise<void> {
    const res = await requestRollback(first(), ns, 'prod', await bob(), { reason: 'errors up' });
    expect(res.status).toBe(202);
    expect(await res.json()).toMatchObject({
      recorded: true,
      revision: '6.5.0',
      from: '6.6.0',
      principal: 'bob',
      state: 'rolling-back',
    });
    const record = await recordAt(fleet, ns, 'prod', '6.5.0');
    // The SSO token's id is the statement id the rollback records.
    expect(record.rollback).toEqual({
      from: '6.6.0',
      by: ['bob'],
      reason: 'errors up',
      statements: [expect.any(String) as string],
    });
    await rollsOut(ns, 'prod', '6.5.0');
    await idle();
  }

  it('rolls prod back once, records and notifies it, holds 6.6.0 until lifted, then promotes it once', async () => {
    const ns = `rb-lift-${replicas}`;
    await prodAt660(ns);
    await rolledBack(ns);
    const prod = pipelineOf(fleet, ns).status?.environments?.prod;
    expect(prod?.history?.at(-1)).toMatchObject({
      revision: '6.5.0',
      rollback: { from: '6.6.0', by: ['bob'] },
      succeededTime: expect.any(String) as string,
    });
    expect(holdsOf(fleet, ns, 'prod')).toEqual([
      expect.objectContaining({ revision: '6.6.0', reason: 'RolledBack', by: 'bob' }),
    ]);
    const types = factsOf(pipelineOf(fleet, ns))
      .filter((f) => f.environment === 'prod')
      .map((f) => f.type);
    expect(types).toEqual(expect.arrayContaining(['RollbackStarted', 'RollbackSucceeded']));
    // The replica that ran it logs a rollback, not a promotion, and from what.
    const ran = logLines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((l) => l.pipeline === `${ns}/podinfo` && l.environment === 'prod');
    expect(ran.filter((l) => l.msg === 'rollback succeeded')).toEqual([
      expect.objectContaining({ revision: '6.5.0', rollbackFrom: '6.6.0' }),
    ]);
    for (const g of gateways) {
      const decision = await eventually(async () => {
        const d = await viewer.decisionOf(g, ns, 'prod');
        if (d.reason !== 'RolledBack') throw new Error(`prod decides ${JSON.stringify(d)}`);
        return d;
      });
      expect(decision).toMatchObject({ outcome: 'Waiting', revision: '6.6.0' });
    }
    // A resync on every replica decides the same: 6.6.0 stays held.
    for (const g of gateways) await g.gateway.resync();
    await idle();
    expect(promotedRevisions(fleet, ns, 'prod')).toEqual(['6.6.0', '6.5.0']);

    const lifted = await liftHold(last(), ns, 'prod', await bob(), '6.6.0');
    expect(lifted.status).toBe(200);
    expect(await lifted.json()).toMatchObject({ lifted: 1, liftedBy: 'bob' });
    await recordAt(fleet, ns, 'prod', '6.6.0');
    await idle();
    expect(promotedRevisions(fleet, ns, 'prod')).toEqual(['6.6.0', '6.5.0', '6.6.0']);
    expect((await liftHold(first(), ns, 'prod', await bob(), '6.6.0')).status).toBe(404);
  }, 90_000);

  it('promotes a newer upstream revision over the hold normally', async () => {
    const ns = `rb-newer-${replicas}`;
    await prodAt660(ns);
    await rolledBack(ns);
    await rollsOut(ns, 'dev', '6.7.0');
    await recordAt(fleet, ns, 'staging', '6.7.0');
    await rollsOut(ns, 'staging', '6.7.0');
    await recordAt(fleet, ns, 'prod', '6.7.0');
    await idle();
    expect(promotedRevisions(fleet, ns, 'prod')).toEqual(['6.6.0', '6.5.0', '6.7.0']);
  }, 90_000);

  it('answers bad rollback requests with their documented errors and records nothing', async () => {
    const ns = `rb-bad-${replicas}`;
    await prodAt660(ns);
    const before = JSON.stringify(pipelineOf(fleet, ns).status?.environments?.prod?.approvals);
    const stranger = await sso.token({ sub: 'mallory-sub' });
    const answers = [
      await requestRollback(first(), ns, 'prod', undefined, { reason: 'x' }),
      await requestRollback(first(), ns, 'prod', stranger, { reason: 'x' }),
      await requestRollback(last(), ns, 'prod', await bob(), { revision: '1.0.0', reason: 'x' }),
      await requestRollback(last(), ns, 'prod', await bob(), { revision: '6.6.0', reason: 'x' }),
      await requestRollback(first(), ns, 'prod', await bob(), { reason: '' }),
      await requestRollback(first(), ns, 'prod', await bob(), { reason: 'x', extra: 1 }),
      await requestRollback(first(), ns, 'prod', await bob(), '{"reason":'),
      await requestRollback(first(), ns, 'qa', await bob(), { reason: 'x' }),
      await requestRollback(first(), ns, 'dev', await bob(), { reason: 'x' }),
    ];
    const codes = await Promise.all(
      answers.map(async (r) => [r.status, ((await r.json()) as { code: string }).code]),
    );
    expect(codes).toEqual([
      [401, 'Unauthenticated'],
      [403, 'Forbidden'],
      [409, 'RevisionNotRun'],
      [409, 'RevisionNotRun'],
      [400, 'InvalidBody'],
      [400, 'InvalidBody'],
      [400, 'InvalidJson'],
      [404, 'NotFound'],
      [409, 'NoRollbackTarget'],
    ]);
    await idle();
    expect(JSON.stringify(pipelineOf(fleet, ns).status?.environments?.prod?.approvals)).toBe(
      before,
    );
    expect(holdsOf(fleet, ns, 'prod')).toEqual([]);
    expect(promotedRevisions(fleet, ns, 'prod')).toEqual(['6.6.0']);
  }, 90_000);
});
