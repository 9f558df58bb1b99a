/**
 * PromotionAlerts through real HTTP: the shipped CRD and an alert applied with the real
 * kubectl to kube-sim, then listed, their Secret read and their status written with the real
 * client-node as the gateway's user (the grants of src/kube/access.ts). Two replicas writing
 * the status at once both land, one of them re-applied after a 409; a spec the CRD schema
 * refuses is refused by kubectl and stored nowhere; what the schema cannot check comes back
 * as a problem naming the field.
 */
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFleet, type Fleet, type SimCluster } from 'kube-sim';
import { stringify } from 'yaml';
import { AgentPool } from '../../src/kube/agent-pool.js';
import { managementAccess } from '../../src/kube/access.js';
import { AlertStatusWriter } from '../../src/notify/alert-status-writer.js';
import { KubeAlertWriter } from '../../src/kube/alert-writer.js';
import { KubeObjectReader } from '../../src/kube/reader.js';
import { KubeCalls } from '../../src/kube/request-options.js';
import { kubeSecretReader } from '../../src/kube/secret-reader.js';
import type { WriteAttempt } from '../../src/kube/status-writer.js';
import { realScheduler } from '../../src/clock.js';
import { AlertCredentialsReader } from '../../src/notify/alert-credentials.js';
import type { AlertStatus, UncheckedAlert } from '../../src/notify/alert-resource.js';
import { AlertSource } from '../../src/notify/alert-source.js';
import { packagePath } from '../../src/paths.js';
import { tempDir } from '../support/temp-dirs.js';

const CRD = packagePath(
  'manifests',
  'crd',
  'notifications.promotion-gateway.dev_promotionalerts.yaml',
);
const API = 'notifications.promotion-gateway.dev/v1alpha1';
const KEY = Buffer.from('an hmac key of 32 bytes, exactly');
const ED25519 = generateKeyPairSync('ed25519')
  .privateKey.export({ format: 'pem', type: 'pkcs8' })
  .toString();

let fleet: Fleet;
let management: SimCluster;
let dir: string;
let adminKubeconfig: string;
const pools: AgentPool[] = [];

function kubectl(args: string[], stdin?: string) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(
      'kubectl',
      ['--kubeconfig', adminKubeconfig, '--cache-dir', join(dir, 'cache'), ...args],
      { encoding: 'utf8' },
      (err, stdout, stderr) => {
        resolve({ code: err === null ? 0 : 1, stdout, stderr });
      },
    );
    child.stdin?.end(stdin ?? '');
  });
}

/** kubectl apply of objects given as YAML on stdin. */
function apply(...objects: object[]) {
  return kubectl(['apply', '-f', '-'], objects.map((o) => stringify(o)).join('---\n'));
}

/** One gateway replica's client: its own KubeConfig and connection pool, as the gateway user. */
function replica() {
  const kc = new KubeConfig();
  kc.loadFromString(management.kubeconfig('promotion-gateway'));
  const pool = new AgentPool();
  pools.push(pool);
  return { kc, calls: new KubeCalls(5_000, pool) };
}

function alert(name: string, spec: object) {
  return { apiVersion: API, kind: 'PromotionAlert', metadata: { name, namespace: 'shop' }, spec };
}

beforeAll(async () => {
  dir = tempDir('notify-alerts-');
  fleet = await startFleet({ clusters: ['management'], admin: false });
  management = fleet.cluster('management');
  management.ensureNamespace('shop');
  management.addUser('promotion-gateway', managementAccess('flux-system'));
  adminKubeconfig = join(dir, 'admin.kubeconfig');
  await writeFile(adminKubeconfig, management.kubeconfig());
  const crd = await kubectl(['apply', '-f', CRD]);
  expect(crd.stderr).toBe('');
  const applied = await apply(
    alert('hooks', {
      address: 'https://hooks.example.com/in',
      secretRef: { name: 'hooks' },
      eventTypes: ['PromotionSucceeded', 'PromotionFailed'],
      pipelines: [{ matchLabels: { team: 'shop' } }],
    }),
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'hooks', namespace: 'shop' },
      stringData: {
        signingSecret: `whsec_${KEY.toString('base64')}`,
        signingKey: ED25519,
        headers: 'Authorization: Bearer t0ken\n',
      },
    },
  );
  expect(applied.stderr).toBe('');
  expect(applied.code).toBe(0);
});
afterAll(async () => {
  for (const pool of pools) pool.clear();
  await fleet.close();
});

describe('PromotionAlerts on kube-sim', () => {
  it('lists the alert with the CRD defaults applied, and shows it with kubectl', async () => {
    const { kc, calls } = replica();
    const source = new AlertSource(new KubeObjectReader(kc, calls), {
      namespaces: [],
      policy: { crossNamespace: false, allowedUrlPrefixes: [] },
    });
    const listed = await source.list();
    if (!listed.ok) throw new Error(listed.message);
    expect(listed.invalid).toEqual([]);
    expect(listed.alerts).toHaveLength(1);
    expect(listed.alerts[0]).toMatchObject({
      apiVersion: API,
      kind: 'PromotionAlert',
      metadata: { namespace: 'shop', name: 'hooks', generation: 1 },
      spec: {
        type: 'generic',
        timeout: '15s',
        eventTypes: ['PromotionSucceeded', 'PromotionFailed'],
      },
    });
    const shown = await kubectl(['get', 'palert', '-n', 'shop']);
    expect(shown.stdout.split('\n')[0]?.split(/\s{2,}/)).toEqual([
      'NAME',
      'READY',
      'TYPE',
      'LAST DELIVERY',
      'BACKLOG',
      'AGE',
    ]);
    expect(shown.stdout).toMatch(/^hooks\s+generic\s/m);
  });

  it("reads the alert's credentials from its Secret with the gateway's own grants", async () => {
    const { kc, calls } = replica();
    const reader = new AlertCredentialsReader(kubeSecretReader(kc, calls), { now: Date.now });
    const read = await reader.readAlertCredentials({
      metadata: { namespace: 'shop' },
      spec: { secretRef: { name: 'hooks' } },
    });
    if (!read.ok) throw new Error(read.problem);
    expect(read.credentials.signingSecret?.equals(KEY)).toBe(true);
    expect(read.credentials.signingKey?.asymmetricKeyType).toBe('ed25519');
    expect(read.credentials.headers).toEqual({ authorization: 'Bearer t0ken' });
    expect(JSON.stringify(read)).not.toContain('t0ken');
    const missing = await reader.readAlertCredentials({
      metadata: { namespace: 'shop' },
      spec: { secretRef: { name: 'absent' } },
    });
    expect(missing).toMatchObject({ ok: false, reason: 'SecretNotFound' });
  });

  it('lands two replicas writing the status at once: one re-applies its change after a 409', async () => {
    const attempts: WriteAttempt[] = [];
    const writers = [replica(), replica()].map(
      ({ kc, calls }) =>
        new AlertStatusWriter(new KubeAlertWriter(kc, calls), {
          scheduler: realScheduler,
          onAttempt: (a) => attempts.push(a),
        }),
    );
    const seen = await writers[0]!.read({ namespace: 'shop', name: 'hooks' });
    if (seen === undefined) throw new Error('no alert');
    management.requests.reset();
    const deliver = (id: string) => (stored: UncheckedAlert) => {
      const delivered = (stored.status?.counters?.delivered ?? 0) + 1;
      const status: AlertStatus = {
        ...stored.status,
        counters: { ...stored.status?.counters, delivered },
        lastDelivery: {
          id,
          type: 'PromotionSucceeded',
          time: new Date().toISOString(),
          result: 'Delivered',
        },
      };
      return { write: status, verdict: delivered };
    };
    const results = await Promise.all([
      writers[0]!.apply(seen, deliver('evt_a')),
      writers[1]!.apply(seen, deliver('evt_b')),
    ]);
    expect(results.map((r) => r.outcome)).toEqual(['Written', 'Written']);
    expect(results.map((r) => ('verdict' in r ? r.verdict : 0)).sort()).toEqual([1, 2]);
    expect(attempts.filter((a) => a === 'conflict')).toHaveLength(1);
    expect(attempts.filter((a) => a === 'written')).toHaveLength(2);
    const stored = management.get(API, 'PromotionAlert', 'shop', 'hooks') as {
      status: AlertStatus;
      metadata: { generation: number };
    };
    expect(stored.status.counters).toEqual({ delivered: 2 });
    // A status write is not a spec change.
    expect(stored.metadata.generation).toBe(1);
    expect(
      management.requests.count({
        verb: 'update',
        resource: 'promotionalerts.notifications.promotion-gateway.dev',
      }),
    ).toBe(3);
    // The same status again is not written at all.
    const last = results.find((r) => r.outcome === 'Written' && r.verdict === 2);
    if (last?.outcome !== 'Written') throw new Error('no second write');
    const again = await writers[1]!.apply(last.alert, () => ({
      write: last.alert.status ?? {},
      verdict: 0,
    }));
    expect(again.outcome).toBe('Kept');
  });

  it('refuses, with kubectl, a spec the CRD schema refuses, and stores nothing', async () => {
    const cases: [object, string][] = [
      [{ address: 'https://user:pw@hooks.example.com/' }, 'spec.address: Invalid value'],
      [{ address: 'https://hooks.example.com/', type: 'discord' }, 'spec.type: Unsupported value'],
      [{ address: 'https://hooks.example.com/', timeout: '1h' }, 'spec.timeout: Invalid value'],
      [{ type: 'slack' }, 'must match a schema in anyOf'],
    ];
    for (const [spec, why] of cases) {
      const refused = await apply(alert('refused', spec));
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('The PromotionAlert "refused" is invalid');
      expect(refused.stderr).toContain(why);
    }
    expect(management.get(API, 'PromotionAlert', 'shop', 'refused')).toBeUndefined();
  });

  it('reports what the schema cannot check as a problem naming the field', async () => {
    const applied = await apply(
      alert('chat', { type: 'slack', secretRef: { name: 'slack' }, template: '{{message}}' }),
      alert('wide', {
        address: 'https://hooks.example.com/',
        pipelines: [{ namespace: 'billing' }],
      }),
      alert('slow', { address: 'https://hooks.example.com/', timeout: '6m' }),
    );
    expect(applied.code).toBe(0);
    const { kc, calls } = replica();
    const source = new AlertSource(new KubeObjectReader(kc, calls), {
      namespaces: ['shop'],
      policy: { crossNamespace: false, allowedUrlPrefixes: [] },
    });
    const listed = await source.list();
    if (!listed.ok) throw new Error(listed.message);
    expect(listed.alerts.map((a) => a.metadata.name)).toEqual(['hooks']);
    expect(listed.invalid.map((i) => [i.alert.metadata.name, i.problem.split(':')[0]])).toEqual([
      ['chat', 'spec.template'],
      ['slow', 'spec.timeout'],
      ['wide', 'spec.pipelines[0].namespace'],
    ]);
    const allowed = new AlertSource(new KubeObjectReader(kc, calls), {
      namespaces: ['shop'],
      policy: { crossNamespace: ['shop'], allowedUrlPrefixes: [] },
    });
    const wide = await allowed.list();
    expect(wide.ok && wide.alerts.map((a) => a.metadata.name)).toEqual(['hooks', 'wide']);
  });
});
