/**
 * Two real gateway processes (`serve` with a config file) on kube-sim, a train of api and web
 * (web after api) promoted into prod through a webhook, with `rollbackOnFailure`: api is
 * promoted and applied, web's call is refused for good, and the release fails. The receiver
 * applies api's rollback and never answers, and the replica holding the rollback's claim is
 * SIGKILLed between claim and outcome. The other replica resolves the claim after its deadline
 * from what prod runs: exactly one rollback of api from 6.6.0, one webhook call, no hold, and
 * the train's release names api as rolled back.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollOutRelease } from 'kube-sim/flux';
import type { KubeObject } from '../../src/kube/ports.js';
import type { EnvironmentStatus } from '../../src/pipeline/pipeline-resource.js';
import { approver } from '../support/authorizations.js';
import { apiReader } from '../support/chaos/approver.js';
import { bundleGateway, type GatewayBundle } from '../support/chaos/bundle.js';
import { Journal } from '../support/chaos/journal.js';
import { ENDPOINT } from '../support/chaos/replica-config.js';
import { Replicas } from '../support/chaos/replicas.js';
import { ENVIRONMENTS, GATEWAY_USER } from '../support/fleet.js';
import {
  eventually,
  PIPELINE_API,
  postSigned,
  startTestFleet,
  upgradeBody,
  type TestFleet,
} from '../support/gateway-harness.js';
import { applyTrain, createTrainApps, trainStatus } from '../support/train-rig.js';

const NS = 'train-rollback-kill';
const APPS = ['api', 'web'] as const;
let fleet: TestFleet;
let bundle: GatewayBundle;
let replicas: Replicas;
let receiver: Server;
const dir = mkdtempSync(join(tmpdir(), 'train-rollback-kill-'));
/** The webhook calls for prod the receiver took, in order: app, revision, rollback's from. */
const calls: { app: string; revision: string; from?: string }[] = [];

/** Every running replica hears Flux's event about `object` in `env` (best effort). */
async function announce(env: string, object: KubeObject): Promise<void> {
  const body = upgradeBody(object);
  await Promise.all(
    replicas
      .running()
      .map((r) =>
        postSigned(r.url ?? '', `/v1/events/${env}`, body, fleet.key(env)).catch(() => undefined),
      ),
  );
}

function roll(env: string, app: string, version: string): KubeObject {
  return rollOutRelease(fleet.env(env), NS, app, version) as unknown as KubeObject;
}

/**
 * Plays prod's deploy endpoint and Flux: api's promotion is applied and answered 200, web's is
 * refused (400: not retried), api's rollback is applied and never answered.
 */
function startReceiver(): Promise<string> {
  receiver = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    req.on('end', () => {
      const body = JSON.parse(text) as {
        pipeline: { name: string };
        revision: string;
        rollback?: { from: string };
      };
      const app = body.pipeline.name;
      calls.push({ app, revision: body.revision, ...(body.rollback ?? {}) });
      if (app === 'web') {
        res.writeHead(400).end();
        return;
      }
      void announce('prod', roll('prod', app, body.revision));
      if (body.rollback === undefined) res.writeHead(200).end();
    });
  });
  return new Promise((resolve) => {
    receiver.listen(0, '127.0.0.1', () => {
      resolve(`http://127.0.0.1:${String((receiver.address() as AddressInfo).port)}/deploy`);
    });
  });
}

function apiInProd(): EnvironmentStatus | undefined {
  const object = fleet.management.get(PIPELINE_API, 'Pipeline', NS, 'api') as
    { status?: { environments?: Record<string, EnvironmentStatus> } } | undefined;
  return object?.status?.environments?.prod;
}

const release = () =>
  trainStatus(fleet, NS, 'release')?.environments?.find((e) => e.name === 'prod')?.release;

beforeAll(async () => {
  const [built, started, alice] = await Promise.all([
    bundleGateway(),
    startTestFleet(),
    approver('alice'),
  ]);
  [bundle, fleet] = [built, started];
  const webhook = { webhook: { endpoint: ENDPOINT } };
  createTrainApps(fleet, NS, APPS, {}, { api: webhook, web: webhook });
  applyTrain(fleet, NS, 'release', {
    members: [{ name: 'api' }, { name: 'web', dependsOn: ['api'] }],
    environments: ['prod'],
    rollbackOnFailure: true,
  });
  const kubeconfig = join(dir, 'management.kubeconfig');
  writeFileSync(kubeconfig, fleet.management.kubeconfig(GATEWAY_USER), { mode: 0o600 });
  const shared = {
    hmacKeys: Object.fromEntries(ENVIRONMENTS.map((e) => [e, fleet.key(e).toString('utf8')])),
    receiverUrl: await startReceiver(),
    alertUrl: 'http://127.0.0.1:9/alerts',
    webhookSecret: `whsec_${randomBytes(24).toString('base64')}`,
    approver: { name: alice.name, publicKeyPem: alice.publicKeyPem },
    reader: await apiReader(),
    logLevel: 'info',
  };
  replicas = new Replicas({ bundle: bundle.file, dir, kubeconfig, shared, journal: new Journal() });
  await Promise.all([replicas.start('a'), replicas.start('b')]);
  void replicas.probe();
  if (!(await replicas.allReady(60_000))) throw new Error(replicas.tails(40));
}, 120_000);

afterAll(async () => {
  await replicas.stopAll();
  await new Promise((resolve) => receiver.close(resolve));
  await fleet.close();
  bundle.remove();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe("a train's rollback whose claim holder is SIGKILLed between claim and outcome", () => {
  it('is resolved by the other replica: exactly one rollback of api from 6.6.0', async () => {
    await eventually(
      () => {
        expect(release()).toMatchObject({ state: 'Succeeded' });
        expect(apiInProd()?.verified?.map((v) => v.revision)).toContain('6.5.0');
      },
      { timeoutMs: 40_000 },
    );
    for (const env of ['dev', 'staging'])
      for (const app of APPS) await announce(env, roll(env, app, '6.6.0'));

    // api is promoted and applied, web is refused: the release fails; api's rollback is taken
    // by the receiver, which does not answer: kill the replica holding its claim.
    const claim = await eventually(
      () => {
        const r = apiInProd()?.promotion;
        if (r?.revision !== '6.5.0' || r.phase !== 'Claimed' || calls.at(-1)?.from !== '6.6.0')
          throw new Error(`api's prod record is ${JSON.stringify(r)}`);
        return r;
      },
      { timeoutMs: 60_000 },
    );
    expect(release()).toMatchObject({ state: 'Failed', waitingFor: ['web'] });
    const holder = replicas.byIdentity(claim.claimedBy ?? '');
    if (holder === undefined) throw new Error(`no replica ${String(claim.claimedBy)}`);
    replicas.kill(holder);

    const resolved = await eventually(
      () => {
        const r = apiInProd()?.promotion;
        if (r?.revision !== '6.5.0' || r.phase !== 'Succeeded')
          throw new Error(`api's prod record is ${JSON.stringify(r)}`);
        return r;
      },
      { timeoutMs: 60_000 },
    );
    expect(resolved).toMatchObject({
      resolution: 'Observed',
      rollback: { from: '6.6.0', automatic: true, train: `${NS}/release` },
    });
    await eventually(
      () => {
        expect(release()).toMatchObject({ state: 'Failed', rolledBack: ['api'] });
      },
      { timeoutMs: 40_000 },
    );
    const prod = apiInProd();
    expect(prod?.history?.filter((e) => e.rollback !== undefined)).toHaveLength(1);
    expect(prod?.holds ?? []).toEqual([]);
    const api = calls.filter((c) => c.app === 'api');
    expect(api).toEqual([
      { app: 'api', revision: '6.6.0' },
      { app: 'api', revision: '6.5.0', from: '6.6.0' },
    ]);
  }, 180_000);
});
