/**
 * The web view of the real gateway on kube-sim, with two replicas and with one: each serves the
 * view on its own `ui.port` from the watched Pipelines; a Flux rollout reaches an open live
 * stream on every replica once the status shows it (how soon is test/unit/ui/app.test.ts's, on
 * the hub's clock; here it is only logged, as real time on a loaded machine proves nothing
 * about the gateway); once idle, every replica's page
 * shows the same row and the same Pipeline page; a viewer scoped to another Pipeline never
 * receives this one (page or stream); and the status keeps when each revision was first
 * verified in each environment, which the lead-time section shows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  APP_NAME,
  createApp,
  eventually,
  launchGateway,
  pipelineOf,
  postSigned,
  rollOut,
  startTestFleet,
  upgradeBody,
  waitSteady,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';
import { AUDIENCE, ISSUER, jwtFixture, type JwtFixture } from '../support/ingress-harness.js';
import { openSse, type SseReader } from '../support/sse-client.js';

let fleet: TestFleet;
let keys: JwtFixture;
const running: RunningGateway[] = [];
const streams: SseReader[] = [];

beforeAll(async () => {
  fleet = await startTestFleet();
  keys = await jwtFixture();
});
afterAll(async () => {
  for (const s of streams) s.close();
  await Promise.all(running.map((g) => g.close()));
  await fleet.close();
});

async function replicas(ns: string, count: number): Promise<RunningGateway[]> {
  const started = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      launchGateway(fleet, {
        instanceId: `${ns}-${String(i)}`,
        config: {
          jwt: {
            issuer: ISSUER,
            audience: AUDIENCE,
            algorithms: ['RS256'],
            publicKeys: [{ value: keys.publicPem }],
          },
          ui: { port: 0 },
          leaderElection: { name: `${ns}-resync` },
        },
      }),
    ),
  );
  running.push(...started);
  return started;
}

const uiOf = (g: RunningGateway): string => {
  const address = g.gateway.uiAddress();
  if (address === undefined) throw new Error('the view is not listening');
  return address;
};

const tokenFor = async (pipelines: string[], sub: string) => ({
  authorization: `Bearer ${await keys.sign({ sub, pipelines })}`,
});

/** The row of `id` in a fleet page. */
function rowOf(page: string, id: string): string {
  const start = page.indexOf(`data-pipeline="${id}"`);
  if (start < 0) throw new Error(`no row for ${id}`);
  return page.slice(start, page.indexOf('</tr>', start));
}

/** The body of a Pipeline page, without what only its own replica says. */
function bodyOf(page: string): string {
  return page.slice(page.indexOf('<div id="pipeline-body">'), page.indexOf('</main>'));
}

describe.each([2, 1])('the web view with %i replica(s)', (count) => {
  it('streams a rollout to every replica within 1 s, and every replica shows the same', async () => {
    const ns = `ui-${String(count)}`;
    const id = `${ns}/${APP_NAME}`;
    createApp(fleet, ns, { prodPromotion: { approval: { minApprovals: 1 } } });
    createApp(fleet, `${ns}-other`);
    const gateways = await replicas(ns, count);
    await waitSteady(fleet, gateways, ns);
    const mine = await tokenFor([id], `viewer-${ns}`);
    const stranger = await tokenFor([`${ns}-other/*`], `stranger-${ns}`);

    const lives = await Promise.all(gateways.map((g) => openSse(`${uiOf(g)}/live`, mine)));
    const strangers = await Promise.all(gateways.map((g) => openSse(`${uiOf(g)}/live`, stranger)));
    streams.push(...lives, ...strangers);
    for (const live of lives) await live.next((m) => m.event === 'rows');
    const from = lives.map((l) => l.messages.length);

    // Flux rolls dev out and tells the first replica; the status shows it, the streams follow.
    const [first] = gateways;
    if (first === undefined) throw new Error('no replica');
    const dev = rollOut(fleet.dev, ns, '6.6.0');
    await postSigned(first.url, '/v1/events/dev', upgradeBody(dev), fleet.key('dev'));
    const stored = await eventually(
      () => {
        const dev = pipelineOf(fleet, ns).status?.environments?.dev?.targets?.[0];
        if (dev?.revision !== '6.6.0') throw new Error('dev not at 6.6.0 in the status yet');
        return Date.now();
      },
      { intervalMs: 5 },
    );
    const frames = await Promise.all(
      lives.map((live, i) =>
        live.next((m) => m.event === 'rows' && m.data.includes('6.6.0'), 5_000, from[i]),
      ),
    );
    console.log(
      `${String(count)} replica(s): the rollout reached the streams ${frames.map((f) => `${String(f.at - stored)} ms`).join(', ')} after the status showed it`,
    );

    // Settled: staging promoted and rolled out, prod waits for its approval.
    const staging = await eventually(
      () => pipelineOf(fleet, ns).status?.environments?.staging?.promotion?.phase === 'Succeeded',
    );
    expect(staging).toBe(true);
    rollOut(fleet.staging, ns, '6.6.0');
    await postSigned(first.url, '/v1/events/staging', upgradeBody(dev), fleet.key('staging'));
    await eventually(
      () => pipelineOf(fleet, ns).status?.environments?.prod?.waitingApproval?.revision === '6.6.0',
      { timeoutMs: 20_000 },
    );
    const pages = await eventually(
      async () => {
        for (const g of gateways) await g.gateway.idle();
        const got = await Promise.all(
          gateways.map(async (g) => ({
            fleet: await (await fetch(`${uiOf(g)}/`, { headers: mine })).text(),
            pipeline: await (await fetch(`${uiOf(g)}/pipelines/${id}`, { headers: mine })).text(),
          })),
        );
        const rows = got.map((p) => rowOf(p.fleet, id));
        const bodies = got.map((p) => bodyOf(p.pipeline));
        if (!rows[0]?.includes('waiting for approval of 6.6.0')) throw new Error('not waiting');
        if (!rows.every((r) => r === rows[0]) || !bodies.every((b) => b === bodies[0]))
          throw new Error('the replicas differ');
        return got;
      },
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    const [page] = pages;
    expect(page?.fleet).toContain('data-testid="count-waiting">1<');
    expect(page?.pipeline).toContain('data-testid="gate"');
    // The picture says it too, alike on every replica: the arrow into prod waits with 6.6.0.
    expect(page?.pipeline).toMatch(
      /data-testid="picture-edge" data-state="waiting" data-revision="6\.6\.0"/,
    );
    // The first environment's verified record, and staging's after it: a lead time.
    const verified = pipelineOf(fleet, ns).status?.environments;
    expect(verified?.dev?.verified?.map((v) => v.revision)).toContain('6.6.0');
    expect(verified?.staging?.verified?.map((v) => v.revision)).toContain('6.6.0');
    expect(page?.pipeline).toMatch(/data-testid="lead-time"[\s\S]*6\.6\.0/);

    // Each replica's /metrics counts its own view: the two streams open on it, its pages.
    for (const g of gateways) {
      const metrics = await (await fetch(`${g.url}/metrics`)).text();
      expect(metrics).toMatch(/^promotion_gateway_ui_live_streams 2$/m);
      expect(metrics).toMatch(
        /^promotion_gateway_ui_requests_total\{route="\/",status="200"\} [1-9]/m,
      );
    }

    // The stranger saw its own Pipeline only, on every replica, page and stream alike.
    for (const [i, s] of strangers.entries()) {
      expect(s.messages.length).toBeGreaterThan(0);
      for (const m of s.messages) expect(m.data).not.toContain(id);
      const gateway = gateways[i];
      if (gateway === undefined) continue;
      const theirs = await (await fetch(`${uiOf(gateway)}/`, { headers: stranger })).text();
      expect(theirs).not.toContain(id);
      expect((await fetch(`${uiOf(gateway)}/pipelines/${id}`, { headers: stranger })).status).toBe(
        404,
      );
    }
  }, 90_000);
});
