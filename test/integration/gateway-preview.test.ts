/**
 * Previews through the real gateway, kube-sim and forge-sim: for each strategy the previewed
 * change is what the strategy then writes (the Event, the webhook body, the pull request's
 * diff), and the preview door reads nothing for a caller it has not authenticated.
 */
import { applyPatch } from 'diff';
import { startForge, type ForgeHandle } from 'forge-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StrategySpec } from '../../src/pipeline/pipeline-resource.js';
import {
  approver,
  approverConfig,
  postStatement,
  statement,
  type TestApprover,
} from '../support/authorizations.js';
import {
  APP_NAME,
  HR_RESOURCE,
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
import { NotifyReceiver } from '../support/notify-receiver.js';
import { prepareRepository, repoName, repositoryFiles } from '../support/pull-request.js';
import {
  getPreview,
  hunksByFile,
  pageDiff,
  previewOf,
  readTokens,
  type ReadTokens,
} from '../support/preview.js';

let fleet: TestFleet;
let forge: ForgeHandle;
let gw: RunningGateway;
let alice: TestApprover;
let tokens: ReadTokens;
let forgeToken: string;
const receiver = new NotifyReceiver();

beforeAll(async () => {
  [fleet, forge, alice, tokens] = await Promise.all([
    startTestFleet(),
    startForge({ kind: 'github' }),
    approver('alice'),
    readTokens(),
    receiver.start(),
  ]);
  receiver.up = true;
  forgeToken = forge.addToken('promoter');
  gw = await launchGateway(fleet, {
    config: {
      jwt: tokens.config,
      ui: { port: 0 },
      approvals: { approvers: approverConfig([alice]) },
      promotion: {
        pullRequest: { allowPlainHttp: true, refreshIntervalMs: 0 },
        retry: { maxAttempts: 3, backoffBaseMs: 100, backoffMaxMs: 1000 },
        webhooks: {
          deployer: {
            url: receiver.url,
            secret: { value: 'whsec_cHJldmlldw==' },
            timeoutMs: 5_000,
          },
        },
      },
    },
  });
});
afterAll(async () => {
  await gw.close();
  await Promise.all([forge.close(), fleet.close(), receiver.close()]);
});

/** ns/podinfo with a manual prod promoted by `strategy`; dev and staging run 6.6.0. */
async function prodWaits(ns: string, strategy?: StrategySpec): Promise<void> {
  createApp(fleet, ns, {
    prodPromotion: { manual: true },
    ...(strategy === undefined ? {} : { prodStrategy: strategy }),
  });
  await waitSteady(fleet, [gw], ns);
  rollOut(fleet.dev, ns, '6.6.0');
  rollOut(fleet.staging, ns, '6.6.0');
  await gw.gateway.resync();
  await gw.gateway.idle();
  await eventually(() => {
    expect(pipelineOf(fleet, ns).status?.environments?.prod?.waitingApproval).toMatchObject({
      revision: '6.6.0',
    });
  });
}

/** A pull-request strategy on a fresh repository for `ns`. */
async function pullRequestApp(ns: string): Promise<{ repo: string; strategy: StrategySpec }> {
  const repo = repoName('github', ns);
  const strategy = await prepareRepository(fleet, forge, ns, {
    repo,
    token: forgeToken,
    version: '6.5.0',
  });
  return { repo, strategy };
}

async function approve(ns: string): Promise<void> {
  const jws = await statement(alice, {
    pipeline: `${ns}/${APP_NAME}`,
    environment: 'prod',
    revision: '6.6.0',
  });
  const res = await postStatement(gw.url, ns, 'prod', jws);
  expect(res.status).toBe(202);
  await eventually(() => {
    expect(recordOf(fleet, ns, 'prod')).toMatchObject({ revision: '6.6.0', phase: 'Succeeded' });
  });
}

/**
 * GETs of ns/podinfo's HelmRelease on every cluster, every request to the forge, and every
 * request to the management cluster in `ns` (the forge token's Secret among them).
 */
function reads(ns: string): number[] {
  const gets = ['dev', 'staging', 'prod'].map((env) =>
    fleet.env(env).requests.count({ verb: 'get', resource: HR_RESOURCE, namespace: ns }),
  );
  return [...gets, forge.requests.count(), fleet.management.requests.count({ namespace: ns })];
}

describe('previews', () => {
  it('refuses a caller without a credential (401) or out of scope (404) before reading anything', async () => {
    const ns = 'pv-refused';
    const { strategy } = await pullRequestApp(ns);
    await prodWaits(ns, strategy);
    await gw.gateway.idle();
    const before = reads(ns);
    const outsider = await tokens.token(['elsewhere/*']);
    const answers = await Promise.all([
      getPreview(gw.url, ns, 'prod'),
      getPreview(gw.url, ns, 'prod', 'not.a.token'),
      getPreview(gw.url, ns, 'prod', outsider),
    ]);
    expect(answers.map((a) => a.status)).toEqual([401, 401, 404]);
    expect(await answers[0].json()).toEqual({
      code: 'Unauthenticated',
      message: 'Authentication failed.',
    });
    expect(reads(ns)).toEqual(before);

    // The same request with a credential reads the forge and the prod target.
    const token = await tokens.token([`${ns}/*`]);
    expect((await getPreview(gw.url, ns, 'prod', token)).status).toBe(200);
    const after = reads(ns);
    expect(after[2]).toBeGreaterThan(before[2] ?? 0);
    expect(after[3]).toBeGreaterThan(before[3] ?? 0);
    expect(after[4]).toBeGreaterThan(before[4] ?? 0);
    // An environment with nothing pending, and one the Pipeline does not have.
    expect((await getPreview(gw.url, ns, 'staging', token)).status).toBe(409);
    expect((await getPreview(gw.url, ns, 'qa', token)).status).toBe(404);
  });

  it('shows the Event the notification strategy then records', async () => {
    const ns = 'pv-event';
    await prodWaits(ns);
    const preview = await previewOf(gw.url, ns, 'prod', await tokens.token([`${ns}/*`]));
    expect(preview).toMatchObject({
      environment: 'prod',
      revision: '6.6.0',
      digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      moves: [
        {
          target: `prod/${ns}/${APP_NAME}`,
          from: '6.5.0',
          to: '6.6.0',
          source: { kind: 'HelmRepository', name: APP_NAME, chart: APP_NAME },
        },
      ],
    });
    expect(preview.summary).toBe('prod: 6.5.0 -> 6.6.0 by a Promote event');
    await approve(ns);
    const events = promoteEvents(fleet, ns).filter(
      (e) => e.metadata.annotations?.environment === 'prod',
    ) as unknown as { type: string; reason: string; message: string; metadata: object }[];
    expect(events).toHaveLength(1);
    const [event] = events;
    expect(preview.change).toEqual({
      kind: 'notification',
      event: {
        type: event?.type,
        reason: event?.reason,
        message: event?.message,
        annotations: (event?.metadata as { annotations?: object }).annotations,
      },
    });
  });

  it('shows the body the webhook strategy then posts, byte for byte', async () => {
    const ns = 'pv-webhook';
    await prodWaits(ns, { webhook: { endpoint: 'deployer' } });
    const preview = await previewOf(gw.url, ns, 'prod', await tokens.token([`${ns}/*`]));
    await approve(ns);
    const sent = receiver.accepted.filter((a) => a.body.includes(`"namespace":"${ns}"`));
    expect(sent).toHaveLength(1);
    if (preview.change.kind !== 'webhook') throw new Error(preview.change.kind);
    expect(preview.change.endpoint).toBe('deployer');
    expect(preview.change.varies).toEqual(['attempt', 'timestamp']);
    // The body the preview showed with the time it was sent at: the very bytes received.
    const { timestamp } = JSON.parse(sent[0]?.body ?? '{}') as { timestamp: string };
    const shown = JSON.parse(preview.change.body) as { timestamp: string };
    expect(sent[0]?.body).toBe(JSON.stringify({ ...shown, timestamp }));
  });

  it("shows the pull request's diff against the base commit it is then opened on", async () => {
    const ns = 'pv-pull';
    const { repo, strategy } = await pullRequestApp(ns);
    await prodWaits(ns, strategy);
    const preview = await previewOf(gw.url, ns, 'prod', await tokens.token([`${ns}/*`]));
    if (preview.change.kind !== 'pull-request') throw new Error(JSON.stringify(preview.change));
    const { change } = preview;
    expect(change).toMatchObject({
      baseBranch: 'main',
      baseCommit: await forge.branchHead(repo, 'main'),
      branch: `promotion-${ns}-${APP_NAME}-prod`,
      truncated: false,
    });
    expect(change.files.map((f) => f.path)).toEqual([
      'envs/prod/image.yml',
      'envs/prod/podinfo.yaml',
    ]);
    expect(preview.summary).toBe('prod: 6.5.0 -> 6.6.0 by pull request on main (2 files)');
    await approve(ns);

    const url = recordOf(fleet, ns, 'prod')?.pullRequest?.url ?? '';
    const log = await forge.log(repo, change.branch);
    expect(log[0]?.parents).toEqual([change.baseCommit]);
    const base = repositoryFiles(ns, '6.5.0');
    for (const file of change.files) {
      const written = await forge.readFile(repo, change.branch, file.path);
      expect(applyPatch(base[file.path] ?? '', file.diff)).toBe(written);
    }
    const shown = hunksByFile(change.files.map((f) => f.diff).join(''));
    expect(hunksByFile(await pageDiff(url))).toEqual(shown);
  });

  it("shows the change on the web view's approval gate, to an authenticated viewer only", async () => {
    const ns = 'pv-view';
    const { repo, strategy } = await pullRequestApp(ns);
    await prodWaits(ns, strategy);
    const ui = gw.gateway.uiAddress() ?? '';
    const authorization = `Bearer ${await tokens.token([`${ns}/*`])}`;
    const pipelinePage = await (
      await fetch(`${ui}/pipelines/${ns}/${APP_NAME}`, { headers: { authorization } })
    ).text();
    const link = `/pipelines/${ns}/${APP_NAME}/environments/prod/preview`;
    expect(pipelinePage).toContain(`data-testid="preview-link" href="${link}"`);

    await gw.gateway.idle();
    const before = reads(ns);
    const refused = await fetch(`${ui}${link}`);
    expect(refused.status).toBe(401);
    expect(reads(ns)).toEqual(before);

    const res = await fetch(`${ui}${link}`, { headers: { authorization } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    const text = await res.text();
    const preview = await previewOf(gw.url, ns, 'prod', await tokens.token([`${ns}/*`]));
    expect(text).toContain(`<code data-testid="preview-digest">${preview.digest}</code>`);
    expect(text).toContain(await forge.branchHead(repo, 'main'));
    expect(text).toContain('<span class="add">+  tag: &#39;6.6.0&#39;');
    expect(text).not.toMatch(/<script>|style=/);
    const staging = await fetch(`${ui}/pipelines/${ns}/${APP_NAME}/environments/staging/preview`, {
      headers: { authorization },
    });
    expect(staging.status).toBe(409);
  });
});
