/**
 * The installed Pipeline CRD replaced while the gateway runs, through kube-sim (which prunes
 * custom objects by their CRD's schema as the API server does) and the real client, with one
 * replica and with two: once a re-check finds weave-gitops' own CRD, which would prune the
 * promotion records, every status write is held (nothing is written, nothing is promoted, the
 * replica is not ready and says why); once this project's CRD is back, the held promotion
 * happens at the next resync pass, exactly once; an approval meanwhile answers 503 StatusHeld
 * and records nothing, and counts once it is sent again; one whose own answer shows the CRD
 * did not keep it is answered 503 StatusHeld too. Before any re-check, the first claim
 * whose answer lacks its record runs nothing and holds the writes at once, and a halt whose
 * answer lacks it is answered 503 StatusHeld, never as in force.
 */
import { fileURLToPath } from 'node:url';
import { applyFiles } from 'kube-sim';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { signHaltStatement } from '../../src/auth/halt-statement.js';
import {
  approver,
  approverConfig,
  startIssuer,
  type TestApprover,
  type TestIssuer,
} from '../support/authorizations.js';
import {
  APP_NAME,
  createApp,
  eventually,
  launchGateway,
  metricSum,
  pipelineOf,
  PIPELINE_API,
  postSigned,
  promoteEvents,
  recordOf,
  rollOut,
  startTestFleet,
  upgradeBody,
  waitSteady,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';

const UPSTREAM_CRD = fileURLToPath(
  new URL('../fixtures/weave-gitops/pipelines.weave.works_pipelines.yaml', import.meta.url),
);
const OUR_CRD = fileURLToPath(
  new URL('../../manifests/crd/pipelines.weave.works_pipelines.yaml', import.meta.url),
);
const NS = 'swap';
/** No check before a write within this: the write's own answer is what finds the CRD. */
const ANSWER_ONLY = 600_000;

let fleet: TestFleet | undefined;
let replicas: RunningGateway[] = [];
let sso: TestIssuer;
let carol: TestApprover;

beforeAll(async () => {
  [sso, carol] = await Promise.all([startIssuer('https://sso.example.com'), approver('carol')]);
});
afterAll(async () => {
  await sso.close();
});

afterEach(async () => {
  await Promise.all(replicas.map((r) => r.close()));
  replicas = [];
  await fleet?.close();
});

/**
 * `count` replicas on a new fleet with ns/podinfo (prod gated on bob), steady at 6.5.0;
 * `crdFreshMs`: how old the CRD's last check may be when a write is made (the gateway's 2 s).
 */
async function replicasOn(
  count: number,
  prodGated: boolean,
  crdFreshMs?: number,
): Promise<TestFleet> {
  const f = await startTestFleet();
  fleet = f;
  createApp(f, NS, prodGated ? { prodPromotion: { approval: { approvers: ['bob'] } } } : {});
  const approvals = {
    approvers: [
      { name: 'bob', oidcSubjects: [`${sso.issuer}#bob-sub`], groups: [] },
      ...approverConfig([carol]),
    ],
    oidc: { issuer: sso.issuer, audience: 'promotion-gateway', jwksUrl: sso.jwksUrl },
  };
  replicas = await Promise.all(
    ['replica-a', 'replica-b'].slice(0, count).map((instanceId) =>
      launchGateway(f, {
        instanceId,
        config: { approvals },
        ...(crdFreshMs === undefined ? {} : { crdFreshMs }),
      }),
    ),
  );
  await waitSteady(f, replicas, NS);
  return f;
}

/** weave-gitops' CRD over ours, and every replica's re-check finds it. */
async function swapInUpstreamCrd(f: TestFleet): Promise<void> {
  await applyFiles(f.management, [UPSTREAM_CRD]);
  for (const r of replicas) await r.gateway.recheckCrd();
}

/** This project's CRD back, and every replica's re-check finds it. */
async function restoreOurCrd(f: TestFleet): Promise<void> {
  await applyFiles(f.management, [OUR_CRD]);
  for (const r of replicas) await r.gateway.recheckCrd();
  for (const r of replicas) expect(r.gateway.status().reasons).toEqual([]);
}

function approve(g: RunningGateway, token: string): Promise<Response> {
  return fetch(`${g.url}/v1/pipelines/${NS}/${APP_NAME}/environments/prod/approvals`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ revision: '6.6.0', decision: 'approve' }),
  });
}

function resourceVersion(f: TestFleet): unknown {
  const pipeline = f.management.get(PIPELINE_API, 'Pipeline', NS, APP_NAME) as
    { metadata: { resourceVersion?: string } } | undefined;
  return pipeline?.metadata.resourceVersion;
}

describe.each([1, 2])('the Pipeline CRD replaced while %i replica(s) run', (count) => {
  it('holds every status write while it would prune them, then promotes once', async () => {
    const f = await replicasOn(count, false);
    await swapInUpstreamCrd(f);
    for (const r of replicas) {
      const { ready, reasons } = r.gateway.status();
      expect(ready).toBe(false);
      expect(reasons.join(' ')).toMatch(
        /status writes are held: .*status\.environments\.\*\.promotion/,
      );
      const readyz = await fetch(`${r.url}/readyz`);
      expect(readyz.status).toBe(503);
    }

    // dev rolls out 6.6.0: staging is due, but neither its claim nor dev's record may be written.
    const before = resourceVersion(f);
    const body = upgradeBody(rollOut(f.dev, NS, '6.6.0'));
    const answers = await Promise.all(
      replicas.map((r) => postSigned(r.url, '/v1/events/dev', body, f.key('dev'))),
    );
    expect(answers.map((a) => a.status)).toEqual(replicas.map(() => 202));
    for (const r of replicas) await r.gateway.idle();
    await Promise.all(replicas.map((r) => r.gateway.resync()));
    for (const r of replicas) await r.gateway.idle();
    expect(resourceVersion(f)).toBe(before);
    expect(recordOf(f, NS, 'staging')).toBeUndefined();
    expect(promoteEvents(f, NS)).toHaveLength(0);

    // This project's CRD back: the next check lets writes go, and the next resync pass (no
    // event this time) promotes staging, once.
    await restoreOurCrd(f);
    await Promise.all(replicas.map((r) => r.gateway.resync()));
    const record = await eventually(() => {
      const r = recordOf(f, NS, 'staging');
      if (r?.phase !== 'Succeeded') throw new Error(`staging's record is ${JSON.stringify(r)}`);
      return r;
    });
    for (const r of replicas) await r.gateway.idle();
    expect(record).toMatchObject({ revision: '6.6.0', attempt: 1, succeeded: true });
    expect(promoteEvents(f, NS)).toHaveLength(1);
  });

  it('runs nothing on a claim the CRD did not keep, and holds the writes at once', async () => {
    const f = await replicasOn(count, false, ANSWER_ONLY);
    // weave's CRD, and no re-check: the replicas learn it from their first claim's answer.
    await applyFiles(f.management, [UPSTREAM_CRD]);
    const body = upgradeBody(rollOut(f.dev, NS, '6.6.0'));
    await Promise.all(replicas.map((r) => postSigned(r.url, '/v1/events/dev', body, f.key('dev'))));
    await eventually(() => {
      for (const r of replicas)
        expect(r.gateway.status().reasons.join(' ')).toMatch(/status writes are held/);
    });
    for (const r of replicas) await r.gateway.idle();
    expect(promoteEvents(f, NS)).toHaveLength(0);
    const unkept = await Promise.all(
      replicas.map((r) =>
        metricSum(r.url, 'promotion_gateway_promotions_total', { outcome: 'Unkept' }),
      ),
    );
    expect(unkept.every((n) => n >= 1)).toBe(true);

    await restoreOurCrd(f);
    await Promise.all(replicas.map((r) => r.gateway.resync()));
    const record = await eventually(() => {
      const r = recordOf(f, NS, 'staging');
      if (r?.phase !== 'Succeeded') throw new Error(`staging's record is ${JSON.stringify(r)}`);
      return r;
    });
    expect(record).toMatchObject({ revision: '6.6.0', attempt: 1 });
    expect(promoteEvents(f, NS)).toHaveLength(1);
  });

  it('answers a halt the CRD did not keep 503 StatusHeld, never as in force', async () => {
    const f = await replicasOn(count, false, ANSWER_ONLY);
    await applyFiles(f.management, [UPSTREAM_CRD]);
    const last = replicas[replicas.length - 1];
    if (last === undefined) throw new Error('no replica');
    const iat = Math.floor(Date.now() / 1000);
    const claims = {
      sub: 'carol',
      iat,
      exp: iat + 300,
      jti: randomUUID(),
      action: 'halt' as const,
    };
    const statement = await signHaltStatement(
      { ...claims, pipeline: `${NS}/${APP_NAME}`, reason: 'incident 42' },
      carol.privateKey,
      'EdDSA',
    );
    const answer = await fetch(`${last.url}/v1/halts`, {
      method: 'POST',
      headers: { 'content-type': 'application/jose' },
      body: statement,
    });
    expect(answer.status).toBe(503);
    expect(((await answer.json()) as { code: string }).code).toBe('StatusHeld');
    await eventually(() => {
      expect(last.gateway.status().reasons.join(' ')).toMatch(/status writes are held/);
    });
    expect(pipelineOf(f, NS).status?.halts ?? []).toEqual([]);
  });

  it('answers an approval 503 StatusHeld and records nothing, then records it once', async () => {
    const f = await replicasOn(count, true);
    rollOut(f.dev, NS, '6.6.0');
    rollOut(f.staging, NS, '6.6.0');
    await Promise.all(replicas.map((r) => r.gateway.resync()));
    for (const r of replicas) await r.gateway.idle();
    await swapInUpstreamCrd(f);
    const last = replicas[replicas.length - 1];
    if (last === undefined) throw new Error('no replica');

    const before = resourceVersion(f);
    const held = await approve(last, await sso.token({ sub: 'bob-sub' }));
    expect(held.status).toBe(503);
    expect(held.headers.get('retry-after')).toBe('60');
    expect(await held.json()).toEqual({
      code: 'StatusHeld',
      message: 'The gateway cannot record to the Pipeline status now; retry later.',
    });
    expect(resourceVersion(f)).toBe(before);

    await restoreOurCrd(f);
    const recorded = await approve(last, await sso.token({ sub: 'bob-sub' }));
    expect(recorded.status).toBe(202);
    const record = await eventually(() => {
      const r = recordOf(f, NS, 'prod');
      if (r?.phase !== 'Succeeded') throw new Error(`prod's record is ${JSON.stringify(r)}`);
      return r;
    });
    expect(record).toMatchObject({ revision: '6.6.0', attempt: 1 });
    const approvals = pipelineOf(f, NS).status?.environments?.prod?.approvals ?? [];
    expect(approvals.map((a) => a.principal)).toEqual(['bob']);
  });

  it('answers an approval the CRD did not keep 503 StatusHeld, and holds the writes', async () => {
    const f = await replicasOn(count, true, ANSWER_ONLY);
    rollOut(f.dev, NS, '6.6.0');
    rollOut(f.staging, NS, '6.6.0');
    await Promise.all(replicas.map((r) => r.gateway.resync()));
    for (const r of replicas) await r.gateway.idle();
    // weave's CRD, unannounced: the approval's own answer shows it was not kept.
    await applyFiles(f.management, [UPSTREAM_CRD]);
    const last = replicas[replicas.length - 1];
    if (last === undefined) throw new Error('no replica');
    const unkept = await approve(last, await sso.token({ sub: 'bob-sub' }));
    expect([unkept.status, ((await unkept.json()) as { code: string }).code]).toEqual([
      503,
      'StatusHeld',
    ]);
    await eventually(() => {
      expect(last.gateway.status().reasons.join(' ')).toMatch(/status writes are held/);
    });
    expect(recordOf(f, NS, 'prod')).toBeUndefined();
  });

  it('checks the CRD before a write: under a pruning CRD nothing is written, the gate survives', async () => {
    const f = await replicasOn(count, true, 0);
    const before = resourceVersion(f);
    await applyFiles(f.management, [UPSTREAM_CRD]);
    // dev and staging at 6.6.0: prod would wait for bob; staging would be written, and a write
    // would store the Pipeline as weave's CRD reads it, without prod's gate.
    const body = upgradeBody(rollOut(f.dev, NS, '6.6.0'));
    await Promise.all(replicas.map((r) => postSigned(r.url, '/v1/events/dev', body, f.key('dev'))));
    await eventually(() => {
      for (const r of replicas)
        expect(r.gateway.status().reasons.join(' ')).toMatch(/status writes are held/);
    });
    for (const r of replicas) await r.gateway.idle();
    expect(resourceVersion(f)).toBe(before);
    expect(promoteEvents(f, NS)).toHaveLength(0);
    await restoreOurCrd(f);
    const prod = pipelineOf(f, NS).spec.environments.find((e) => e.name === 'prod');
    expect(prod?.promotion?.approval?.approvers).toEqual(['bob']);
  });
});
