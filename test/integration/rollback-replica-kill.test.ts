/**
 * Two real gateway processes (`serve` with a config file) on kube-sim, prod promoted through a
 * webhook: a signed rollback statement asks to roll prod back; the receiver applies the rollback
 * and never answers, and the replica holding the rollback's claim is SIGKILLed between claim and
 * outcome. The other replica resolves the claim after its deadline from what prod runs: exactly
 * one rollback of (prod, 6.6.0) — one webhook call, one history entry, one hold.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRollbackStatement } from '../../src/auth/rollback-statement.js';
import type { KubeObject } from '../../src/kube/ports.js';
import { approver, type TestApprover } from '../support/authorizations.js';
import { apiReader } from '../support/chaos/approver.js';
import { bundleGateway, type GatewayBundle } from '../support/chaos/bundle.js';
import { Journal } from '../support/chaos/journal.js';
import { ENDPOINT } from '../support/chaos/replica-config.js';
import { Replicas } from '../support/chaos/replicas.js';
import { ENVIRONMENTS, GATEWAY_USER } from '../support/fleet.js';
import {
  APP_NAME,
  createApp,
  eventually,
  pipelineOf,
  postSigned,
  recordOf,
  rollOut,
  startTestFleet,
  upgradeBody,
  type TestFleet,
} from '../support/gateway-harness.js';
import { holdsOf, recordAt, verifiedAt } from '../support/rollback-harness.js';

const NS = 'rb-kill';
let fleet: TestFleet;
let bundle: GatewayBundle;
let replicas: Replicas;
let receiver: Server;
let alice: TestApprover;
const dir = mkdtempSync(join(tmpdir(), 'rollback-kill-'));
/** The webhook calls for prod the receiver took, in order: revision and rollback's from. */
const calls: { revision: string; from?: string }[] = [];

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

/**
 * Plays prod's deploy endpoint and Flux: a promotion is applied and answered 200; a rollback is
 * applied and never answered (its replica is killed before the answer could count).
 */
function startReceiver(): Promise<string> {
  receiver = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    req.on('end', () => {
      const body = JSON.parse(text) as { revision: string; rollback?: { from: string } };
      calls.push({ revision: body.revision, ...(body.rollback ?? {}) });
      void announce('prod', rollOut(fleet.prod, NS, body.revision));
      if (body.rollback === undefined) res.writeHead(200).end();
    });
  });
  return new Promise((resolve) => {
    receiver.listen(0, '127.0.0.1', () => {
      resolve(`http://127.0.0.1:${String((receiver.address() as AddressInfo).port)}/deploy`);
    });
  });
}

beforeAll(async () => {
  [bundle, fleet, alice] = await Promise.all([
    bundleGateway(),
    startTestFleet(),
    approver('alice'),
  ]);
  createApp(fleet, NS, {
    prodStrategy: { webhook: { endpoint: ENDPOINT } },
    prodPromotion: { rollback: { approvers: ['alice'] } },
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

describe('a rollback whose claim holder is SIGKILLed between claim and outcome', () => {
  it('is resolved by the other replica: exactly one rollback of (prod, 6.6.0)', async () => {
    await verifiedAt(fleet, NS, 'prod', '6.5.0');
    await announce('dev', rollOut(fleet.dev, NS, '6.6.0'));
    await recordAt(fleet, NS, 'staging', '6.6.0', 'Succeeded', 40_000);
    await announce('staging', rollOut(fleet.staging, NS, '6.6.0'));
    await recordAt(fleet, NS, 'prod', '6.6.0', 'Succeeded', 40_000);
    await verifiedAt(fleet, NS, 'prod', '6.6.0');

    const iat = Math.floor(Date.now() / 1000);
    const statement = await signRollbackStatement(
      {
        ...{ sub: 'alice', pipeline: `${NS}/${APP_NAME}`, environment: 'prod' },
        ...{ reason: 'errors up', iat, exp: iat + 300, jti: randomUUID() },
      },
      alice.privateKey,
      'EdDSA',
    );
    const [first] = replicas.running();
    const res = await fetch(
      `${first?.url ?? ''}/v1/pipelines/${NS}/${APP_NAME}/environments/prod/rollbacks`,
      { method: 'POST', headers: { 'content-type': 'application/jose' }, body: statement },
    );
    expect(res.status).toBe(202);

    // The receiver took the rollback and does not answer: kill the replica holding its claim.
    const claim = await eventually(
      () => {
        const r = recordOf(fleet, NS, 'prod');
        if (r?.revision !== '6.5.0' || r.phase !== 'Claimed' || calls.at(-1)?.from !== '6.6.0')
          throw new Error(`prod's record is ${JSON.stringify(r)}`);
        return r;
      },
      { timeoutMs: 30_000 },
    );
    const holder = replicas.byIdentity(claim.claimedBy ?? '');
    if (holder === undefined) throw new Error(`no replica ${String(claim.claimedBy)}`);
    replicas.kill(holder);

    const resolved = await recordAt(fleet, NS, 'prod', '6.5.0', 'Succeeded', 60_000);
    expect(resolved).toMatchObject({ resolution: 'Observed', rollback: { from: '6.6.0' } });
    const prod = pipelineOf(fleet, NS).status?.environments?.prod;
    expect(prod?.history?.filter((e) => e.rollback !== undefined)).toHaveLength(1);
    expect(holdsOf(fleet, NS, 'prod')).toEqual([
      expect.objectContaining({ revision: '6.6.0', reason: 'RolledBack', by: 'alice' }),
    ]);
    expect(calls.filter((c) => c.from === '6.6.0')).toHaveLength(1);
    expect(calls.map((c) => c.revision)).toEqual(['6.6.0', '6.5.0']);
  }, 150_000);
});
