/**
 * The WaitingForApproval event carries the pending change's preview, through real HTTP against
 * kube-sim and forge-sim, with one gateway and with two replicas: its digest is the one the
 * preview endpoint gives (what an approval may sign), with the summary and a link to the web
 * view's page; the status keeps the preview the wait began with when the base branch moves
 * (the event told that one, and none is sent again) while an approval bound to the old change
 * stops counting, told by a PreviewChanged event; and with the forge not answering, the
 * wait is still recorded and told once the bounded wait is over, saying its preview was not
 * known.
 */
import { startForge, type ForgeHandle } from 'forge-sim';
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
  rollOut,
  startTestFleet,
  waitSteady,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';
import { NotifyReceiver, subscribeAlert } from '../support/notify-receiver.js';
import { previewOf, readTokens, type ReadTokens } from '../support/preview.js';
import { prepareRepository, repoName } from '../support/pull-request.js';

const VIEW_URL = 'https://promotions.example.com';

interface WaitEvent {
  type: string;
  data: {
    principal?: string;
    environment: string;
    revision: string;
    message: string;
    pipeline: { namespace: string };
    preview?: { digest: string; summary: string; url?: string };
  };
}

let fleet: TestFleet;
let forge: ForgeHandle;
let alice: TestApprover;
let tokens: ReadTokens;
let forgeToken: string;
const receiver = new NotifyReceiver();
const running: RunningGateway[] = [];

beforeAll(async () => {
  [fleet, forge, alice, tokens] = await Promise.all([
    startTestFleet(),
    startForge({ kind: 'github' }),
    approver('alice'),
    readTokens(),
    receiver.start(),
  ]).then(([f, g, a, t]) => [f, g, a, t] as const);
  receiver.up = true;
  forgeToken = forge.addToken('promoter');
});
afterAll(async () => {
  await Promise.all(running.map((g) => g.close()));
  await Promise.all([forge.close(), fleet.close(), receiver.close()]);
});

async function replica(instanceId: string): Promise<RunningGateway> {
  const gw = await launchGateway(fleet, {
    instanceId,
    config: {
      jwt: tokens.config,
      approvals: { approvers: approverConfig([alice]) },
      promotion: { pullRequest: { allowPlainHttp: true, refreshIntervalMs: 0 } },
      notifications: {
        intervalMs: 100,
        retryBaseMs: 50,
        retryMaxMs: 200,
        allowedUrlPrefixes: [receiver.url],
        // Generous on a machine the test shares: the preview's Git fetch runs in this process.
        previewWaitMs: 10_000,
      },
      ui: { port: 0, externalUrl: `${VIEW_URL}/` },
    },
  });
  running.push(gw);
  return gw;
}

/** ns/podinfo promoting prod by pull request behind an approval, with an alert to the receiver. */
async function prodGated(ns: string, replicas: RunningGateway[]): Promise<string> {
  const repo = repoName('github', ns);
  const prodStrategy = await prepareRepository(fleet, forge, ns, {
    repo,
    token: forgeToken,
    version: '6.5.0',
  });
  createApp(fleet, ns, { prodStrategy, prodPromotion: { approval: { minApprovals: 2 } } });
  subscribeAlert(fleet.management, ns, receiver.url, ['WaitingForApproval', 'PreviewChanged']);
  await waitSteady(fleet, replicas, ns);
  return repo;
}

/** dev and staging roll out 6.6.0; every replica looks at once. */
async function stagingRollsOut(ns: string, replicas: RunningGateway[]): Promise<void> {
  rollOut(fleet.dev, ns, '6.6.0');
  rollOut(fleet.staging, ns, '6.6.0');
  for (const r of replicas) {
    await r.gateway.resync();
    await r.gateway.idle();
  }
}

/** The events of `type` `ns` got, each once (retries and replicas send the same). */
function received(ns: string, type: string): WaitEvent[] {
  const byId = new Map<string, WaitEvent>();
  for (const a of receiver.accepted) {
    const event = JSON.parse(a.body) as WaitEvent;
    if (event.data.pipeline.namespace === ns && event.type === type) byId.set(a.id, event);
  }
  return [...byId.values()];
}

const waits = (ns: string) => received(ns, 'promotion.waiting_for_approval');

const waitingOf = (ns: string) => pipelineOf(fleet, ns).status?.environments?.prod?.waitingApproval;

describe.each([1, 2])('the WaitingForApproval event and its preview, %i replica(s)', (count) => {
  let replicas: RunningGateway[];
  beforeAll(async () => {
    const ids = Array.from({ length: count }, (_, i) => `wait-pv-${String(count)}-${String(i)}`);
    replicas = await Promise.all(ids.map((id) => replica(id)));
  });

  it("carries the preview's digest, summary and page, and keeps them when the base moves", async () => {
    const ns = `wait-pv-${String(count)}`;
    const repo = await prodGated(ns, replicas);
    await stagingRollsOut(ns, replicas);
    await eventually(() => {
      expect(waits(ns)).toHaveLength(1);
    });
    const token = await tokens.token([`${ns}/*`]);
    const seen = await previewOf(replicas[0]!.url, ns, 'prod', token);
    const [event] = waits(ns);
    expect(event?.data).toMatchObject({ environment: 'prod', revision: '6.6.0' });
    expect(event?.data.preview).toEqual({
      digest: seen.digest,
      summary: seen.summary,
      url: `${VIEW_URL}/pipelines/${ns}/${APP_NAME}/environments/prod/preview`,
    });
    expect(seen.summary).toContain('6.5.0 -> 6.6.0 by pull request on main');
    expect(event?.data.message).toContain(seen.digest);
    expect(waitingOf(ns)?.preview).toEqual({ digest: seen.digest, summary: seen.summary });

    // alice approves the change as the event told it (one of two approvals).
    const claims = { pipeline: `${ns}/${APP_NAME}`, environment: 'prod', revision: '6.6.0' };
    const signed = await statement(alice, { ...claims, previewDigest: seen.digest });
    expect((await postStatement(replicas[0]!.url, ns, 'prod', signed)).status).toBe(202);

    // The base moves: the preview now is another; the wait keeps what its event told, and
    // alice's approval, bound to the old change, stops counting and is told once.
    await forge.commit(repo, 'main', { 'README.md': '# fleet\n\nhotfix\n' }, 'hotfix');
    const now = await previewOf(replicas[replicas.length - 1]!.url, ns, 'prod', token);
    expect(now.digest).not.toBe(seen.digest);
    for (const r of replicas) {
      await r.gateway.resync();
      await r.gateway.idle();
    }
    expect(waitingOf(ns)?.preview?.digest).toBe(seen.digest);
    expect(waits(ns)).toHaveLength(1);
    expect(waitingOf(ns)?.previewChanged).toEqual([
      { principal: 'alice', digest: seen.digest, since: expect.any(String) },
    ]);
    await eventually(() => {
      expect(received(ns, 'promotion.preview_changed')).toHaveLength(1);
    });
    // Every replica now agrees the approval is stale, whatever its own previews saw: another
    // look by each writes nothing (no replica undoes another's status).
    const settled = pipelineOf(fleet, ns).metadata.resourceVersion;
    for (const r of [...replicas, ...replicas]) {
      await r.gateway.resync();
      await r.gateway.idle();
    }
    expect(pipelineOf(fleet, ns).metadata.resourceVersion).toBe(settled);
    const [changed] = received(ns, 'promotion.preview_changed');
    expect(changed?.data).toMatchObject({ principal: 'alice', revision: '6.6.0' });
    expect(changed?.data.message).toContain("alice's approval of 6.6.0 for prod no longer counts");

    // alice approves the change as it is now, and the base moves again: told again.
    const again = await statement(alice, { ...claims, previewDigest: now.digest });
    const answer = await postStatement(replicas[0]!.url, ns, 'prod', again);
    expect(answer.status, await answer.text()).toBe(202);
    await forge.commit(repo, 'main', { 'README.md': '# fleet\n\nsecond hotfix\n' }, 'hotfix 2');
    // As the first time, a preview asked for after the move is what finds it.
    expect((await previewOf(replicas[0]!.url, ns, 'prod', token)).digest).not.toBe(now.digest);
    for (const r of replicas) {
      await r.gateway.resync();
      await r.gateway.idle();
    }
    await eventually(() => {
      expect(waitingOf(ns)?.previewChanged?.map((c) => c.digest)).toEqual([
        seen.digest,
        now.digest,
      ]);
      expect(received(ns, 'promotion.preview_changed')).toHaveLength(2);
    });
  });

  it('records and tells the wait when the forge does not answer within the bound, without a preview', async () => {
    const ns = `wait-pv-down-${String(count)}`;
    await prodGated(ns, replicas);
    forge.faults.set({ hang: { scope: 'all' } });
    try {
      await stagingRollsOut(ns, replicas);
      await eventually(
        () => {
          expect(waits(ns)).toHaveLength(1);
        },
        { timeoutMs: 30_000 },
      );
      expect(waitingOf(ns)).toMatchObject({ revision: '6.6.0' });
      expect(waitingOf(ns)?.preview).toBeUndefined();
    } finally {
      forge.faults.clear();
    }
    const [event] = waits(ns);
    expect(event?.data.preview).toBeUndefined();
    expect(event?.data.message).toContain('its preview was not known when the wait began');
  }, 60_000);
});
