/**
 * Two real gateway processes (`serve` with a config file) on kube-sim, a train of three members
 * promoted into prod through a webhook (web after api): the replica holding the resync Lease,
 * the train's one writer, is SIGKILLed as soon as the release is recorded Promoting. The other
 * replica takes the Lease and continues the recorded release: every member is promoted exactly
 * once, web after api, and the release ends Succeeded.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { combinationDigest } from '../../src/trains/combination-digest.js';
import type { KubeObject } from '../../src/kube/ports.js';
import { approver } from '../support/authorizations.js';
import { apiReader } from '../support/chaos/approver.js';
import { bundleGateway, type GatewayBundle } from '../support/chaos/bundle.js';
import { Journal } from '../support/chaos/journal.js';
import { ENDPOINT } from '../support/chaos/replica-config.js';
import { Replicas } from '../support/chaos/replicas.js';
import { ENVIRONMENTS, FLUX_NAMESPACE, GATEWAY_USER } from '../support/fleet.js';
import {
  eventually,
  postSigned,
  startTestFleet,
  upgradeBody,
  type TestFleet,
} from '../support/gateway-harness.js';
import { applyTrain, createTrainApps, trainStatus } from '../support/train-rig.js';
import { rollOutRelease } from 'kube-sim/flux';

const NS = 'train-kill';
const APPS = ['api', 'web', 'worker'] as const;
let fleet: TestFleet;
let bundle: GatewayBundle;
let replicas: Replicas;
let receiver: Server;
const dir = mkdtempSync(join(tmpdir(), 'train-kill-'));
/** The webhook calls for prod the receiver took, in order: app and revision. */
const calls: { app: string; revision: string }[] = [];

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

/** Plays prod's deploy endpoint and Flux: each promotion is answered 200, then applied. */
function startReceiver(): Promise<string> {
  receiver = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    req.on('end', () => {
      const body = JSON.parse(text) as { pipeline: { name: string }; revision: string };
      calls.push({ app: body.pipeline.name, revision: body.revision });
      res.writeHead(200).end();
      void announce('prod', roll('prod', body.pipeline.name, body.revision));
    });
  });
  return new Promise((resolve) => {
    receiver.listen(0, '127.0.0.1', () => {
      resolve(`http://127.0.0.1:${String((receiver.address() as AddressInfo).port)}/deploy`);
    });
  });
}

const release = () =>
  trainStatus(fleet, NS, 'release')?.environments?.find((e) => e.name === 'prod')?.release;

/** The identity holding the resync Lease. */
function leaseHolder(): string {
  const leases = fleet.management.list('coordination.k8s.io/v1', 'Lease', FLUX_NAMESPACE) as {
    spec?: { holderIdentity?: string };
  }[];
  const holder = leases[0]?.spec?.holderIdentity;
  if (holder === undefined) throw new Error('no Lease holder');
  return holder;
}

beforeAll(async () => {
  const [built, started, alice] = await Promise.all([
    bundleGateway(),
    startTestFleet(),
    approver('alice'),
  ]);
  [bundle, fleet] = [built, started];
  const webhook = { webhook: { endpoint: ENDPOINT } };
  createTrainApps(fleet, NS, APPS, {}, { api: webhook, web: webhook, worker: webhook });
  applyTrain(fleet, NS, 'release', {
    members: [{ name: 'api' }, { name: 'web', dependsOn: ['api'] }, { name: 'worker' }],
    environments: ['prod'],
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

describe('a train whose writer is SIGKILLed mid-release', () => {
  it('is continued by the other replica: each member promoted once, web after api', async () => {
    await eventually(
      () => {
        expect(release()).toMatchObject({ state: 'Succeeded', reason: 'Arrived' });
      },
      { timeoutMs: 40_000 },
    );
    for (const env of ['dev', 'staging'])
      for (const app of APPS) await announce(env, roll(env, app, '6.6.0'));

    await eventually(
      () => {
        expect(release()?.state).toBe('Promoting');
      },
      { timeoutMs: 40_000 },
    );
    const holder = replicas.byIdentity(leaseHolder());
    if (holder === undefined) throw new Error('the Lease holder is not a running replica');
    replicas.kill(holder);

    const digest = combinationDigest({ api: '6.6.0', web: '6.6.0', worker: '6.6.0' });
    await eventually(
      () => {
        expect(release()).toMatchObject({ digest, state: 'Succeeded' });
      },
      { timeoutMs: 60_000 },
    );
    expect(calls.map((c) => c.app).sort()).toEqual(['api', 'web', 'worker']);
    for (const c of calls) expect(c.revision).toBe('6.6.0');
    expect(calls.findIndex((c) => c.app === 'web')).toBeGreaterThan(
      calls.findIndex((c) => c.app === 'api'),
    );
  }, 150_000);
});
