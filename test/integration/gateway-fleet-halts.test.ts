/**
 * Halts across Pipelines through the real gateway (one replica, then two) on kube-sim: a halt
 * by label selector through one replica holds prod of every matching Pipeline and of no other
 * (one id, its selector recorded), the halts-in-force gauge counts it on every replica, and the
 * lift through another replica frees them all, prod then promoted exactly once. Bad input
 * (selectors, more Pipelines than one call may halt, unknown ids) gets its documented 4xx and
 * changes no Pipeline. Signed statements and replays: gateway-halt-replays.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HaltRecord } from '../../src/pipeline/pipeline-resource.js';
import { startIssuer, type TestIssuer } from '../support/authorizations.js';
import {
  announceRollout,
  apiViewer,
  pendingWith,
  promotionsTo,
} from '../support/policy-harness.js';
import {
  createApp,
  eventually,
  launchGateway,
  metricSum,
  PIPELINE_API,
  pipelineOf,
  recordOf,
  startTestFleet,
  waitSteady,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';
import type { ConfigInput } from '../../src/config/input.js';

const AUDIENCE = 'promotion-gateway';
const GAUGE = 'promotion_gateway_halts_in_force';

let fleet: TestFleet;
let sso: TestIssuer;
let jwt: Awaited<ReturnType<typeof apiViewer>>['jwt'];

beforeAll(async () => {
  sso = await startIssuer('https://sso.example.com');
  fleet = await startTestFleet();
  ({ jwt } = await apiViewer());
});
afterAll(async () => {
  await fleet.close();
  await sso.close();
});

function config(): ConfigInput {
  return {
    jwt,
    approvals: {
      approvers: [{ name: 'bob', oidcSubjects: [`${sso.issuer}#bob-sub`], groups: [] }],
      oidc: { issuer: sso.issuer, audience: AUDIENCE, jwksUrl: sso.jwksUrl },
    },
  };
}

const bob = () => sso.token({ sub: 'bob-sub' });

/** Creates ns/podinfo labelled `labels`. */
function labelledApp(ns: string, labels: Record<string, string>): void {
  createApp(fleet, ns);
  const { resourceVersion: _rv, ...metadata } = pipelineOf(fleet, ns).metadata;
  fleet.management.apply({ ...pipelineOf(fleet, ns), metadata: { ...metadata, labels } });
  expect(fleet.management.get(PIPELINE_API, 'Pipeline', ns, 'podinfo')?.metadata).toMatchObject({
    labels,
  });
}

async function postHalt(g: RunningGateway, token: string | undefined, body: unknown) {
  return fetch(`${g.url}/v1/halts`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify(body),
  });
}

function deleteHalt(g: RunningGateway, token: string, id: string) {
  return fetch(`${g.url}/v1/halts/${id}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${token}` },
  });
}

interface FleetAnswer {
  halt: HaltRecord;
  pipelines: { pipeline: string; outcome: string }[];
  skipped: number;
  complete: boolean;
}

const haltsOf = (ns: string) => pipelineOf(fleet, ns).status?.halts;

/** The gauge on `g` once it reads `expected` (each replica's catalog follows its watch). */
function gaugeReads(g: RunningGateway, expected: number): Promise<number> {
  return eventually(async () => {
    const value = await metricSum(g.url, GAUGE, { scope: 'environment' });
    if (value !== expected)
      throw new Error(`${GAUGE} is ${String(value)}, not ${String(expected)}`);
    return value;
  });
}

describe.each([1, 2])('halts across Pipelines with %i gateway replica(s)', (replicas) => {
  let gateways: RunningGateway[] = [];
  const replica = (i: number): RunningGateway => {
    const g = gateways[i];
    if (g === undefined) throw new Error(`no replica ${String(i)}`);
    return g;
  };
  const first = () => replica(0);
  const last = () => replica(gateways.length - 1);
  const run = `r${String(replicas)}`;
  const ns = (app: string) => `fleet-halt-${run}-${app}`;

  beforeAll(async () => {
    labelledApp(ns('a'), { team: 'payments', run });
    labelledApp(ns('b'), { team: 'payments', run, tier: 'web' });
    labelledApp(ns('c'), { team: 'search', run });
    labelledApp(ns('d'), { team: 'search', run, tier: 'web' });
    gateways = await Promise.all(
      Array.from({ length: replicas }, (_, i) =>
        launchGateway(fleet, {
          instanceId: `fleet-halts-${run}-${String(i)}`,
          config: config(),
          maxPipelinesPerHalt: 3,
        }),
      ),
    );
    for (const app of ['a', 'b', 'c', 'd']) await waitSteady(fleet, gateways, ns(app));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(gateways.map((g) => g.close()));
  });

  it('holds prod of every matching Pipeline and no other, and lifts it from all', async () => {
    const before = await metricSum(first().url, GAUGE, { scope: 'environment' });
    const res = await postHalt(first(), await bob(), {
      selector: `team=payments,run=${run}`,
      environment: 'prod',
      reason: 'incident 7',
    });
    expect(res.status).toBe(201);
    const answer = (await res.json()) as FleetAnswer;
    expect(answer.pipelines).toEqual([
      { pipeline: `${ns('a')}/podinfo`, outcome: 'halted' },
      { pipeline: `${ns('b')}/podinfo`, outcome: 'halted' },
    ]);
    expect(answer).toMatchObject({ skipped: 0, complete: true });
    expect(answer.halt).toMatchObject({
      selector: `run=${run},team=payments`,
      environment: 'prod',
      principal: 'bob',
      reason: 'incident 7',
    });
    expect(haltsOf(ns('a'))).toEqual([answer.halt]);
    expect(haltsOf(ns('b'))).toEqual([answer.halt]);
    expect(haltsOf(ns('c'))).toBeUndefined();
    expect(haltsOf(ns('d'))).toBeUndefined();
    for (const g of gateways) await gaugeReads(g, before + 2);

    // a's prod would promote: it waits, Halted, while b's staging still promotes.
    const a = ns('a');
    await announceRollout(fleet, gateways, a, 'dev', '6.6.0');
    await eventually(() => recordOf(fleet, a, 'staging')?.phase === 'Succeeded', {
      timeoutMs: 20_000,
    });
    await announceRollout(fleet, gateways, a, 'staging', '6.6.0');
    await pendingWith(fleet, a, 'Halted', 'prod is halted by bob');
    for (const g of gateways) await g.gateway.idle();
    expect(promotionsTo(fleet, a, 'prod')).toBe(0);

    // The lift through the other replica, once its watch has seen the halts.
    const lifted = await eventually(async () => {
      const r = await deleteHalt(last(), await bob(), answer.halt.id);
      if (r.status === 404) throw new Error('not seen yet');
      return r;
    });
    expect(lifted.status).toBe(200);
    const liftAnswer = (await lifted.json()) as FleetAnswer;
    expect(liftAnswer.pipelines.map((p) => p.outcome)).toEqual(['lifted', 'lifted']);
    for (const app of ['a', 'b'])
      expect(haltsOf(ns(app))).toMatchObject([{ id: answer.halt.id, liftedBy: 'bob' }]);
    for (const g of gateways) await gaugeReads(g, before);
    await eventually(() => recordOf(fleet, a, 'prod')?.phase === 'Succeeded', {
      timeoutMs: 20_000,
    });
    for (const g of gateways) await g.gateway.idle();
    expect(promotionsTo(fleet, a, 'prod')).toBe(1);
    expect((await deleteHalt(first(), await bob(), answer.halt.id)).status).toBe(404);
  }, 90_000);

  it('answers bad input with its documented error and changes no Pipeline', async () => {
    const apps = ['a', 'b', 'c', 'd'].map(ns);
    const snapshot = () => apps.map((n) => pipelineOf(fleet, n).status?.halts);
    const stored = snapshot();
    const token = await bob();
    const stranger = await sso.token({ sub: 'mallory-sub' });
    const body = (selector: unknown, extra: object = {}) => ({ selector, reason: 'x', ...extra });
    const cases: [Response, number, string][] = [
      [await postHalt(first(), token, body('-team=x')), 400, 'InvalidBody'],
      [await postHalt(first(), token, body('team in ()')), 400, 'InvalidBody'],
      [await postHalt(first(), token, body('')), 400, 'InvalidBody'],
      [await postHalt(first(), token, body({})), 400, 'InvalidBody'],
      [
        await postHalt(
          first(),
          token,
          body({ matchExpressions: [{ key: 'team', operator: 'Gt' }] }),
        ),
        400,
        'InvalidBody',
      ],
      [
        await postHalt(first(), token, body(`run=${run}`, { environment: 'prod' })),
        400,
        'BadRequest',
      ],
      [await postHalt(first(), token, body('team=nobody')), 404, 'NotFound'],
      [await postHalt(last(), token, body(`run=${run}`, { environment: 'qa' })), 404, 'NotFound'],
      [
        await postHalt(
          first(),
          token,
          body(`team=search,run=${run}`, { expiresAt: '2000-01-01T00:00:00Z' }),
        ),
        400,
        'InvalidBody',
      ],
      [await postHalt(first(), undefined, body(`team=search,run=${run}`)), 401, 'Unauthenticated'],
      [await postHalt(first(), stranger, body(`team=search,run=${run}`)), 403, 'Forbidden'],
      [await deleteHalt(last(), token, '00000000-0000-0000-0000-000000000000'), 404, 'NotFound'],
      [await deleteHalt(last(), token, 'not_an_id'), 400, 'InvalidBody'],
    ];
    const answers = await Promise.all(
      cases.map(async ([res]) => [res.status, ((await res.json()) as { code: string }).code]),
    );
    expect(answers).toEqual(cases.map(([, status, code]) => [status, code]));
    const tooMany = await postHalt(first(), token, body(`run=${run}`));
    expect(((await tooMany.json()) as { message: string }).message).toContain(
      '4 Pipelines match; one call may halt or lift at most 3',
    );
    for (const g of gateways) await g.gateway.idle();
    expect(snapshot()).toEqual(stored);
  }, 60_000);
});
