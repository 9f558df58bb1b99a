/**
 * Keep-alive connection reuse through the gateway's REST calls (KubeConfig's credentials) and
 * kube-sim: the gateway's reads share pooled TLS connections, answers are classified
 * as before, clusters with different CAs never share an agent, and a pooled connection the
 * server dropped is retried once for a GET.
 */
import { request, type AgentOptions } from 'node:https';
import { createRequire } from 'node:module';
import type { TLSSocket } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AgentPool, PooledAgent } from '../../src/kube/agent-pool.js';
import { classifyKubeError } from '../../src/kube/errors.js';
import { KubePipelineWriter } from '../../src/kube/pipeline-writer.js';
import { KubeObjectReader } from '../../src/kube/reader.js';
import { KubeCalls } from '../../src/kube/request-options.js';
import { PIPELINE } from '../../src/kube/resources.js';
import { KubeRest, resourcePath } from '../../src/kube/rest.js';
import type { KubeObject } from '../../src/kube/ports.js';
import { applyFiles, SimCluster, startFleet, type Fleet } from 'kube-sim';

const CRD = fileURLToPath(
  new URL('../fixtures/weave-gitops/pipelines.weave.works_pipelines.yaml', import.meta.url),
);
const NS = 'apps';
const API_VERSION = `${PIPELINE.group}/${PIPELINE.version}`;
const MAX_SOCKETS = 64;
/** The pool every reader in this file shares, as one gateway's readers do. */
const pool = new AgentPool();
const calls = new KubeCalls(10_000, pool);

let fleet: Fleet;
let management: SimCluster;
let dev: SimCluster;
/** Outside the fleet, so it has a self-signed certificate (and CA) of its own. */
let isolated: SimCluster;

function kubeConfig(text: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(text);
  return kc;
}

function readerFor(cluster: SimCluster): KubeObjectReader {
  return new KubeObjectReader(kubeConfig(cluster.kubeconfig()), calls);
}

/** `server`'s kubeconfig trusting `trusted`'s CA instead of its own. */
function withCa(server: SimCluster, trusted: SimCluster): string {
  const text = server.kubeconfig();
  const swapped = text.replace(server.caData ?? '', trusted.caData ?? '');
  expect(swapped).not.toBe(text);
  return swapped;
}

/** Heap and buffers still reachable after full collections (buffers are freed concurrently). */
async function liveBytes(): Promise<number> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

function ref(name: string) {
  return { apiVersion: API_VERSION, kind: 'Pipeline', namespace: NS, name };
}

function pipeline(name: string): KubeObject {
  return {
    apiVersion: API_VERSION,
    kind: 'Pipeline',
    metadata: { name, namespace: NS },
    spec: {
      appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'podinfo' },
      environments: [{ name: 'dev', targets: [{ namespace: NS }] }],
    },
  };
}

async function seed(cluster: SimCluster): Promise<void> {
  await applyFiles(cluster, [CRD]);
  cluster.ensureNamespace(NS);
  cluster.apply(pipeline('p1'));
}

beforeAll(async () => {
  fleet = await startFleet({ clusters: ['management', 'dev'] });
  management = fleet.cluster('management');
  dev = fleet.cluster('dev');
  await seed(management);
  await seed(dev);
  isolated = await SimCluster.start({ name: 'isolated' });
  await seed(isolated);
});

afterAll(async () => {
  pool.clear();
  await Promise.all([fleet.close(), isolated.close()]);
});

describe('keep-alive connection reuse', () => {
  it('serves 20 sequential reads over at most 2 TLS connections', async () => {
    const reader = readerFor(management);
    management.requests.reset();
    for (let i = 0; i < 20; i++) {
      const result = await reader.get(ref('p1'));
      expect(result.ok).toBe(true);
    }
    expect(management.requests.count({ verb: 'get' })).toBe(20);
    expect(management.requests.connections()).toBeGreaterThanOrEqual(1);
    expect(management.requests.connections()).toBeLessThanOrEqual(2);
  });

  it('serves parallel reads on at most maxSockets connections', async () => {
    const reader = readerFor(management);
    management.requests.reset();
    const ten = await Promise.all(Array.from({ length: 10 }, () => reader.get(ref('p1'))));
    expect(ten.every((r) => r.ok)).toBe(true);
    expect(management.requests.connections()).toBeLessThanOrEqual(10);

    management.requests.reset();
    const many = await Promise.all(
      Array.from({ length: MAX_SOCKETS + 16 }, () =>
        reader.list(API_VERSION, 'Pipeline', NS, () => undefined),
      ),
    );
    expect(many.every((r) => r.ok && r.value === 1)).toBe(true);
    expect(management.requests.count()).toBe(MAX_SOCKETS + 16);
    expect(management.requests.connections()).toBeLessThanOrEqual(MAX_SOCKETS);
  });

  it('classifies 404 and 409 answers on pooled connections as NotFound and conflict', async () => {
    const reader = readerFor(management);
    expect(await reader.get(ref('missing'))).toMatchObject({ ok: false, reason: 'NotFound' });

    const kc = kubeConfig(management.kubeconfig());
    const writer = new KubePipelineWriter(kc, calls, 'test');
    const current = await writer.get(NS, 'p1');
    if (current === undefined) throw new Error('p1 is missing');
    const first = await writer.replaceStatus({ ...current, status: { note: 'one' } });
    expect(first.conflict).toBe(false);
    expect(await writer.replaceStatus({ ...current, status: { note: 'two' } })).toEqual({
      conflict: true,
    });

    const err = await new KubeRest(kc, calls)
      .send('PUT', resourcePath(PIPELINE, NS, 'p1'), current)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(classifyKubeError(err)).toMatchObject({ reason: 'ServerError', status: 409 });
  });

  it('keeps clusters with different CAs on different agents, each verified', async () => {
    expect(isolated.caData).not.toBe(management.caData);
    const mgmtReader = readerFor(management);
    const isolatedReader = readerFor(isolated);
    expect((await mgmtReader.get(ref('p1'))).ok).toBe(true);
    const withManagement = pool.size;
    expect((await isolatedReader.get(ref('p1'))).ok).toBe(true);
    expect(pool.size).toBe(withManagement + 1);
    expect((await mgmtReader.get(ref('p1'))).ok).toBe(true);
    expect(pool.size).toBe(withManagement + 1);

    // Each server under the other's CA must fail verification, pooled connections or not.
    const impostors = [
      new KubeObjectReader(kubeConfig(withCa(isolated, management)), calls),
      new KubeObjectReader(kubeConfig(withCa(management, isolated)), calls),
    ];
    isolated.requests.reset();
    management.requests.reset();
    for (const impostor of impostors)
      expect(await impostor.get(ref('p1'))).toMatchObject({
        ok: false,
        reason: 'CertificateRejected',
        message: expect.stringMatching(
          /^the cluster's TLS certificate was not accepted \([A-Z_]+\)$/,
        ),
      });
    expect(isolated.requests.snapshot()).toMatchObject({ total: 0, connections: 0 });
    expect(management.requests.snapshot()).toMatchObject({ total: 0, connections: 0 });
    expect((await isolatedReader.get(ref('p1'))).ok).toBe(true);
    expect((await mgmtReader.get(ref('p1'))).ok).toBe(true);
    expect(isolated.requests.count() + management.requests.count()).toBe(2);
  });

  it('retries a GET once when the server dropped the pooled connection', async () => {
    const reader = readerFor(dev);
    expect((await reader.get(ref('p1'))).ok).toBe(true);
    dev.requests.reset();
    // Dropped in the same tick as the next request: the client cannot have seen the close yet,
    // so the request goes out on the dead socket and fails with ECONNRESET.
    expect(dev.faults.closeConnections()).toBeGreaterThanOrEqual(1);
    expect(await reader.get(ref('p1'))).toMatchObject({ ok: true });
    expect(dev.requests.count()).toBe(1);
    expect(dev.requests.connections()).toBe(1);

    // Dropped while idle, with the client given a chance to see the close before reading.
    dev.faults.closeConnections();
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect((await reader.list(API_VERSION, 'Pipeline', NS, () => undefined)).ok).toBe(true);
    expect(dev.requests.count()).toBe(2);
  });

  it('keeps no response alive on an idle pooled connection', async () => {
    // 200 objects of ~4 KiB: one LIST page of ~0.8 MiB, read as chunks and then concatenated.
    const big = 'big';
    dev.ensureNamespace(big);
    for (let i = 0; i < 200; i++) {
      const object = pipeline(`p${String(i)}`);
      object.metadata = { name: `p${String(i)}`, namespace: big };
      object.metadata.annotations = { padding: 'x'.repeat(4096) };
      dev.apply(object);
    }
    const ownPool = new AgentPool();
    const reader = new KubeObjectReader(
      kubeConfig(dev.kubeconfig()),
      new KubeCalls(10_000, ownPool),
    );
    const listAll = () => reader.list(API_VERSION, 'Pipeline', big, () => undefined);
    const before = await liveBytes();
    dev.requests.reset();
    // Four LISTs at once: four new connections, each opened by one of them, kept idle after.
    const results = await Promise.all([listAll(), listAll(), listAll(), listAll()]);
    expect(results.every((r) => r.ok && r.value === 200)).toBe(true);
    expect(dev.requests.connections()).toBe(4);
    // Node's own session cache kept each socket's first request, response and body: 7.4 MB
    // here on Node 22 and 24; without it 0.01-0.1 MB.
    expect((await liveBytes()) - before).toBeLessThan(1024 * 1024);
    // The connections were idle in the pool all along, not closed: the next LIST reuses one.
    expect((await listAll()).ok).toBe(true);
    expect(dev.requests.connections()).toBe(4);
    ownPool.clear();
  });

  it('resumes the TLS session on a new pooled connection', async () => {
    const options: AgentOptions = {};
    await kubeConfig(dev.kubeconfig()).applyToHTTPSOptions(options);
    // No idle connection kept: every request opens a new one, which can resume the TLS session
    // of the connection before it.
    const agent = new PooledAgent({
      ...options,
      keepAlive: true,
      maxFreeSockets: 0,
      maxSockets: 1,
    });
    const resumed: boolean[] = [];
    for (let i = 0; i < 3; i++) {
      await new Promise<void>((resolve, reject) => {
        const url = new URL('/version', dev.url);
        const req = request(url, { agent, headers: { connection: 'close' } }, (res) => {
          res.resume();
          res.on('end', resolve);
        });
        req.on('socket', (socket) => {
          socket.once('secureConnect', () => resumed.push((socket as TLSSocket).isSessionReused()));
        });
        req.on('error', reject);
        req.end();
      });
    }
    agent.destroy();
    expect(resumed).toEqual([false, true, true]);
  });

  it("makes one TLS context for all of an agent's connections, not one each", async () => {
    const options: AgentOptions = {};
    await kubeConfig(dev.kubeconfig()).applyToHTTPSOptions(options);
    const agent = new PooledAgent({ ...options, keepAlive: true, maxFreeSockets: 0 });
    // tls.connect() makes a context through the module's export when it is given none.
    const tls = createRequire(import.meta.url)('node:tls') as typeof import('node:tls');
    const made = vi.spyOn(tls, 'createSecureContext');
    try {
      for (let i = 0; i < 3; i++) {
        const status = await new Promise<number | undefined>((resolve, reject) => {
          const url = new URL('/version', dev.url);
          const req = request(url, { agent, headers: { connection: 'close' } }, (res) => {
            res.resume();
            res.on('end', () => {
              resolve(res.statusCode);
            });
          });
          req.on('error', reject);
          req.end();
        });
        expect(status).toBe(200);
      }
      // At most the agent's own (the spy may not see it); three without it, one per connection.
      expect(made.mock.calls.length).toBeLessThanOrEqual(1);
    } finally {
      made.mockRestore();
      agent.destroy();
    }
  });

  it('reports connections and drops them through the admin endpoint', async () => {
    const reader = readerFor(dev);
    expect((await reader.get(ref('p1'))).ok).toBe(true);
    const snapshot = (await (
      await fetch(new URL('/clusters/dev/requests', fleet.adminUrl))
    ).json()) as { connections?: unknown; total?: unknown };
    expect(typeof snapshot.connections).toBe('number');
    expect(typeof snapshot.total).toBe('number');
    const dropped = await fetch(new URL('/clusters/dev/faults/close-connections', fleet.adminUrl), {
      method: 'POST',
    });
    expect(((await dropped.json()) as { closed: number }).closed).toBeGreaterThanOrEqual(1);
    expect(dev.faults.stats().connectionsClosed).toBeGreaterThanOrEqual(1);
    expect((await reader.get(ref('p1'))).ok).toBe(true);
  });
});
