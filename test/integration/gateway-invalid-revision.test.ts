/**
 * A revision that is not of its kind, through real sockets, kube-sim and the simulated forge,
 * with one gateway and with two replicas: a HelmRelease deployed at chart version
 * `6.9.0; rm -rf /` is Unknown (InvalidRevision) in the Pipeline status, nothing downstream is
 * promoted (no Promote Event, no record, nothing pushed to Git), and valid revisions move again.
 */
import { startForge, type ForgeHandle } from 'forge-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  APP_NAME,
  INITIAL_VERSION,
  createApp,
  eventually,
  launchGateway,
  pipelineOf,
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
import { prepareRepository, repoName } from '../support/pull-request.js';

const BAD = '6.9.0; rm -rf /';
const RECEIVE_PACK = 'POST /{repo}.git/git-receive-pack';
const CONFIG = { promotion: { pullRequest: { allowPlainHttp: true, refreshIntervalMs: 0 } } };

let fleet: TestFleet;
let forge: ForgeHandle;
let token: string;

beforeAll(async () => {
  [fleet, forge] = await Promise.all([startTestFleet(), startForge({ kind: 'github' })]);
  token = forge.addToken('promoter');
});
afterAll(async () => {
  await forge.close();
  await fleet.close();
});

/** The error `env`'s target shows in the stored Pipeline status, once it is `want`. */
async function statusError(ns: string, env: string, want: string): Promise<void> {
  await eventually(() => {
    const target = pipelineOf(fleet, ns).status?.environments?.[env]?.targets?.[0];
    expect(target).toMatchObject({ ready: false, error: want });
    expect(target?.revision).toBeUndefined();
  });
}

/** Every replica idle after a resync of its own: a decision, had there been one, is taken. */
async function settle(gateways: readonly RunningGateway[]): Promise<void> {
  for (const g of gateways) {
    await g.gateway.resync();
    await g.gateway.idle();
  }
}

/** Rolls `env` of ns out at `version` and sends helm-controller's event to every replica. */
async function release(
  gateways: readonly RunningGateway[],
  ns: string,
  env: 'dev' | 'staging',
  version: string,
): Promise<void> {
  const body = upgradeBody(rollOut(fleet.env(env), ns, version));
  const answers = await Promise.all(
    gateways.map((g) => postSigned(g.url, `/v1/events/${env}`, body, fleet.key(env))),
  );
  expect(answers.map((a) => a.status)).toEqual(gateways.map(() => 202));
}

/** The whole story on `gateways` (one or two replicas), in namespace `ns`. */
async function story(gateways: readonly RunningGateway[], ns: string): Promise<void> {
  const repo = repoName('github', ns);
  const prodStrategy = await prepareRepository(fleet, forge, ns, {
    repo,
    token,
    version: INITIAL_VERSION,
  });
  createApp(fleet, ns, { prodStrategy });
  await waitSteady(fleet, gateways, ns);
  const pushes = forge.requests.count({ route: RECEIVE_PACK });

  // dev deployed at a chart version no Helm chart can have: dev is Unknown, staging waits.
  await release(gateways, ns, 'dev', BAD);
  await statusError(
    ns,
    'dev',
    `InvalidRevision: HelmRelease ${APP_NAME} reports chart version "${BAD}", which is not a SemVer 2 version`,
  );
  await settle(gateways);
  for (const g of gateways) {
    const view = g.gateway.view({ namespace: ns, name: APP_NAME });
    expect(view?.targets.dev?.[0]).toMatchObject({ health: 'Unknown', reason: 'InvalidRevision' });
    expect(view?.decisions.find((d) => d.environment === 'staging')).toMatchObject({
      outcome: 'Unknown',
      reason: 'UpstreamUnknown',
    });
  }
  expect(recordOf(fleet, ns, 'staging')).toBeUndefined();
  expect(promoteEvents(fleet, ns)).toEqual([]);

  // Staging too (applied by hand, say): prod, promoted through Git, decides nothing either.
  await release(gateways, ns, 'staging', BAD);
  await statusError(
    ns,
    'staging',
    `InvalidRevision: HelmRelease ${APP_NAME} reports chart version "${BAD}", which is not a SemVer 2 version`,
  );
  await settle(gateways);
  expect(recordOf(fleet, ns, 'prod')).toBeUndefined();
  expect(forge.pullRequests(repo)).toEqual([]);
  expect(forge.requests.count({ route: RECEIVE_PACK })).toBe(pushes);
  const stored = JSON.stringify(pipelineOf(fleet, ns).status);
  // The value is only ever quoted in the two targets' errors, never a revision or a record.
  expect(stored.split('rm -rf').length - 1).toBe(2);

  // Valid versions move again: prod gets exactly one request, for 6.6.0.
  await release(gateways, ns, 'dev', '6.6.0');
  await release(gateways, ns, 'staging', '6.6.0');
  const record = await eventually(() => {
    const r = recordOf(fleet, ns, 'prod');
    if (r?.revision !== '6.6.0' || r.phase !== 'Succeeded')
      throw new Error(`prod's record is ${JSON.stringify(r)}`);
    return r;
  });
  expect(record.attempt).toBe(1);
  await settle(gateways);
  expect(forge.pullRequests(repo).map((p) => p.title)).toEqual([
    `Promote ${ns}/${APP_NAME} in prod to 6.6.0`,
  ]);
  expect(promoteEvents(fleet, ns)).toEqual([]);
}

describe('an invalid revision on the real gateway: one replica', () => {
  let gw: RunningGateway;
  beforeAll(async () => {
    gw = await launchGateway(fleet, { instanceId: 'single', config: CONFIG });
  });
  afterAll(async () => {
    await gw.close();
  });

  it('keeps the target Unknown and promotes nothing until the revision is valid', async () => {
    await story([gw], 'badrev-one');
  });
});

describe('an invalid revision on the real gateway: two replicas', () => {
  let replicas: RunningGateway[];
  beforeAll(async () => {
    replicas = await Promise.all(
      ['replica-a', 'replica-b'].map((instanceId) =>
        launchGateway(fleet, { instanceId, config: CONFIG }),
      ),
    );
  });
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.close()));
  });

  it('keeps the target Unknown on both and promotes nothing until the revision is valid', async () => {
    await story(replicas, 'badrev-two');
  });
});
