/**
 * Approvals and CI triggers on the shipped deployment, through real HTTP against kube-sim: 200
 * valid calls spread over two replicas (and, the same test, over one), many at once, replays
 * sent to both replicas, and approvals still arriving while the promotion they enabled runs.
 * No answer is a 5xx; every lost race is a documented 409; every (revision) is promoted once;
 * nothing that was accepted is lost.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  approver,
  approverConfig,
  postPromotion,
  postStatement,
  startIssuer,
  statement,
  type TestApprover,
  type TestIssuer,
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

const GITHUB = {
  repository: 'acme/podinfo',
  ref: 'refs/heads/main',
  workflow_ref: 'acme/podinfo/.github/workflows/e2e.yml@refs/heads/main',
  sub: 'repo:acme/podinfo:environment:prod',
};
const APPS = 2;
const REVISIONS = ['6.6.0', '6.7.0', '6.8.0', '6.9.0', '6.10.0'];
/** The codes a valid call may be answered with when it loses a race (docs/api.md). */
const DOCUMENTED_409 = new Set(['Replayed', 'NotWaiting', 'Contended']);

let fleet: TestFleet;
let people: TestApprover[];
let github: TestIssuer;
const running: RunningGateway[] = [];

beforeAll(async () => {
  people = await Promise.all(['alice', 'bob', 'carol', 'dave'].map((n) => approver(n)));
  github = await startIssuer('https://token.actions.githubusercontent.com');
  fleet = await startTestFleet();
});
afterAll(async () => {
  await Promise.all(running.map((g) => g.close()));
  await fleet.close();
  await github.close();
});

async function replicas(prefix: string, count: number): Promise<RunningGateway[]> {
  const config = {
    approvals: { approvers: approverConfig(people) },
    ci: {
      issuers: [
        {
          name: 'github',
          issuer: github.issuer,
          audience: 'promotion-gateway',
          jwksUrl: github.jwksUrl,
        },
      ],
      policies: [
        {
          name: 'e2e',
          issuer: 'github',
          claims: { repository: 'acme/podinfo', ref: 'refs/heads/main' },
          pipelines: ['*'],
          environments: ['prod'],
        },
      ],
    },
  };
  const started = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      launchGateway(fleet, { instanceId: `${prefix}-${String(i)}`, config }),
    ),
  );
  running.push(...started);
  return started;
}

interface Answer {
  status: number;
  code: string;
}

async function answerOf(response: Promise<Response>): Promise<Answer> {
  const res = await response;
  const body = (await res.json()) as { code?: string; state?: string };
  return { status: res.status, code: body.code ?? body.state ?? '' };
}

/** How many times a caller sends a call again after a 503 (as the API reference asks). */
const RETRIES_AFTER_503 = 5;
/** 503 answers met, counted apart: each is retried, and must carry Unavailable + Retry-After. */
const unavailable: { code: string; retryAfter: string | null }[] = [];

/**
 * A call as a well-behaved caller makes it: a 503 `Unavailable` (the management API did not
 * answer within the gateway's call timeout, as on a machine busy with another build) is sent
 * again after its Retry-After; the last answer is the call's.
 */
async function called(send: () => Promise<Response>): Promise<Answer> {
  for (let attempt = 0; ; attempt++) {
    const res = await send();
    const body = (await res.json()) as { code?: string; state?: string };
    const answer = { status: res.status, code: body.code ?? body.state ?? '' };
    if (res.status !== 503 || attempt === RETRIES_AFTER_503) return answer;
    unavailable.push({ code: answer.code, retryAfter: res.headers.get('retry-after') });
    await new Promise((resolve) =>
      setTimeout(resolve, 1000 * Number(res.headers.get('retry-after') ?? 1)),
    );
  }
}

/**
 * One round for `ns` at `revision`: 4 statements each sent three times (two replicas, then the
 * first again) and 4 CI tokens each sent twice, all at once, in an interleaved order.
 */
async function round(gws: RunningGateway[], ns: string, revision: string): Promise<Answer[]> {
  const at = (i: number) => gws[i % gws.length] ?? gws[0];
  const pipeline = `${ns}/${APP_NAME}`;
  const statements = await Promise.all(
    people.map((p) => statement(p, { pipeline, environment: 'prod', revision })),
  );
  const tokens = await Promise.all(people.map(() => github.token(GITHUB)));
  const calls: (() => Promise<Answer>)[] = [];
  statements.forEach((jws, i) => {
    for (const r of [i, i + 1, i + 2]) {
      calls.push(() => called(() => postStatement(at(r)?.url ?? '', ns, 'prod', jws)));
    }
  });
  tokens.forEach((token, i) => {
    for (const r of [i, i + 1]) {
      calls.push(() => called(() => postPromotion(at(r)?.url ?? '', ns, 'prod', token, revision)));
    }
  });
  // Interleave people and CI calls so both doors race each other and the promotion.
  const order = calls.map((_, i) => (i * 7) % calls.length);
  return Promise.all(order.map((i) => calls[i]?.() ?? Promise.reject(new Error('no call'))));
}

// Three replicas too: a replica that saw no rollout must never promote the revision it last saw.
describe.each([2, 1, 3])('approvals and CI calls on %i replica(s)', (count) => {
  it('answer 200 valid calls 202 or a documented 409, a 503 only as Unavailable, and promote each revision once', async () => {
    const prefix = `authz-${String(count)}`;
    const namespaces = Array.from({ length: APPS }, (_, i) => `${prefix}-${String(i)}`);
    const gate = {
      approval: { minApprovals: 3, approvers: ['alice', 'bob', 'carol', 'dave', 'ci:e2e'] },
    };
    for (const ns of namespaces) createApp(fleet, ns, { prodPromotion: gate });
    const gws = await replicas(prefix, count);
    for (const ns of namespaces) await waitSteady(fleet, gws, ns);

    const answers: Answer[] = [];
    for (const revision of REVISIONS) {
      for (const ns of namespaces) {
        rollOut(fleet.dev, ns, revision);
        rollOut(fleet.staging, ns, revision);
      }
      const rounds = await Promise.all(namespaces.map((ns) => round(gws, ns, revision)));
      answers.push(...rounds.flat());
      for (const ns of namespaces) {
        await eventually(() => {
          expect(recordOf(fleet, ns, 'prod')).toMatchObject({ revision, phase: 'Succeeded' });
        });
      }
    }
    await Promise.all(gws.map((g) => g.gateway.idle()));

    expect(answers.length).toBeGreaterThanOrEqual(200);
    const unexpected = answers.filter(
      (a) => !(a.status === 202 || (a.status === 409 && DOCUMENTED_409.has(a.code))),
    );
    expect(unexpected).toStrictEqual([]);
    // The only 5xx a valid call may meet: Unavailable, saying when to call again.
    for (const answer of unavailable) {
      expect(answer).toStrictEqual({
        code: 'Unavailable',
        retryAfter: expect.stringMatching(/^[1-9][0-9]*$/) as string,
      });
    }
    // Each statement and token was recorded at most once: the rest were replays or too late.
    const recorded = answers.filter((a) => a.status === 202).length;
    const replays = answers.filter((a) => a.code === 'Replayed').length;
    expect(recorded).toBeGreaterThanOrEqual(3 * APPS * REVISIONS.length);
    expect(recorded).toBeLessThanOrEqual(8 * APPS * REVISIONS.length);
    expect(replays).toBeGreaterThanOrEqual(answers.length / 2 - recorded);
    for (const ns of namespaces) {
      // One Promote Event per revision: the gate was met once, whoever answered.
      const promoted = promoteEvents(fleet, ns)
        .filter((e) => e.metadata.annotations?.environment === 'prod')
        .map((e) => e.metadata.annotations?.version);
      expect(promoted.sort()).toStrictEqual([...REVISIONS].sort());
      // Every recorded authorization of the last revision is still in the status.
      const kept = pipelineOf(fleet, ns).status?.environments?.prod?.approvals ?? [];
      const jtis = kept.map((r) => r.jti);
      expect(new Set(jtis).size).toBe(jtis.length);
    }
    if (process.env.SHOW_COUNTS !== undefined) {
      const byCode = new Map<string, number>();
      for (const a of answers)
        byCode.set(
          `${String(a.status)} ${a.code}`,
          (byCode.get(`${String(a.status)} ${a.code}`) ?? 0) + 1,
        );
      console.log(count, answers.length, Object.fromEntries(byCode));
    }
    await Promise.all(gws.map((g) => g.close()));
  }, 120_000);

  it('answer Replayed to a used credential after its promotion, on every replica', async () => {
    const ns = `authz-replay-${String(count)}`;
    createApp(fleet, ns, { prodPromotion: { approval: { approvers: ['ci:e2e', 'alice'] } } });
    const gws = await replicas(ns, count);
    await waitSteady(fleet, gws, ns);
    rollOut(fleet.dev, ns, '6.6.0');
    rollOut(fleet.staging, ns, '6.6.0');
    const token = await github.token(GITHUB);
    const alice = people[0];
    if (alice === undefined) throw new Error('no approver');
    const first = gws[0];
    if (first === undefined) throw new Error('no replica');
    expect((await postPromotion(first.url, ns, 'prod', token, '6.6.0')).status).toBe(202);
    await eventually(() => recordOf(fleet, ns, 'prod')?.phase === 'Succeeded');
    // prod is promoted: a fresh statement is NotWaiting, but a used credential is a replay.
    const fresh = await statement(alice, {
      pipeline: `${ns}/${APP_NAME}`,
      environment: 'prod',
      revision: '6.6.0',
    });
    expect(await answerOf(postStatement(first.url, ns, 'prod', fresh))).toStrictEqual({
      status: 409,
      code: 'NotWaiting',
    });
    for (const g of gws) {
      expect(await answerOf(postPromotion(g.url, ns, 'prod', token, '6.6.0'))).toStrictEqual({
        status: 409,
        code: 'Replayed',
      });
    }
    await Promise.all(gws.map((g) => g.close()));
  });

  it('record a credential id longer than the status holds once, by digest, on every replica', async () => {
    const ns = `authz-long-jti-${String(count)}`;
    createApp(fleet, ns, { prodPromotion: { approval: { approvers: ['ci:e2e'] } } });
    const gws = await replicas(ns, count);
    await waitSteady(fleet, gws, ns);
    rollOut(fleet.dev, ns, '6.6.0');
    rollOut(fleet.staging, ns, '6.6.0');
    const token = await github.token({ ...GITHUB, jti: `run-${'7'.repeat(400)}` });
    // The same token at every replica at once: one records it, the others see it used.
    const answers = await Promise.all(
      gws.map((g) => answerOf(postPromotion(g.url, ns, 'prod', token, '6.6.0'))),
    );
    expect(answers.filter((a) => a.status === 202)).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 202))
      expect(a).toStrictEqual({ status: 409, code: 'Replayed' });
    await eventually(() => recordOf(fleet, ns, 'prod')?.phase === 'Succeeded');
    const stored = pipelineOf(fleet, ns).status?.environments?.prod?.approvals ?? [];
    expect(stored.map((r) => r.jti)).toStrictEqual([
      expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
    ]);
    expect(recordOf(fleet, ns, 'prod')).toMatchObject({ revision: '6.6.0', attempt: 1 });
    for (const g of gws) {
      expect(await answerOf(postPromotion(g.url, ns, 'prod', token, '6.6.0'))).toStrictEqual({
        status: 409,
        code: 'Replayed',
      });
    }
    await Promise.all(gws.map((g) => g.close()));
  });
});
