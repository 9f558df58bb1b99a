/**
 * Fault injection and request accounting, from code and from the admin endpoint. Latency is
 * observed through an injected sleep (no wall-clock assertions); randomness is injected.
 */
import { Agent } from 'node:https';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFleet } from '../src/index.js';
import type { Fleet, SimCluster } from '../src/index.js';
import {
  admin as adminCall,
  call,
  clientHello,
  closed,
  open,
  readEvents,
  settlesWithin,
  tcpConnection,
} from './helpers.js';

let fleet: Fleet;
let cluster: SimCluster;
const sleeps: { ms: number; release: () => void }[] = [];
let randomValue = 0.5;

const admin = (method: string, path: string, body?: unknown) =>
  adminCall(fleet.adminUrl, method, path, body);

/** Resolves once `check` holds, yielding to the event loop between checks (no timers). */
async function eventually(check: () => boolean): Promise<void> {
  for (let i = 0; i < 10_000 && !check(); i++) await new Promise((r) => setImmediate(r));
  expect(check()).toBe(true);
}

beforeAll(async () => {
  fleet = await startFleet({
    clusters: ['management', 'dev'],
    random: () => randomValue,
    sleep: (ms) => new Promise<void>((release) => sleeps.push({ ms, release })),
  });
  cluster = fleet.cluster('management');
  cluster.ensureNamespace('apps');
});

afterAll(async () => {
  await fleet.close();
});

beforeEach(async () => {
  await cluster.faults.clear();
  cluster.requests.reset();
});

describe('kube-sim fault injection', () => {
  it('latency: holds matching requests for fixed + random() * jitter, others pass', async () => {
    await cluster.faults.set({
      latency: { fixedMs: 150, jitterMs: 100, verbs: ['get'], resources: ['configmaps'] },
    });
    cluster.apply({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'slow', namespace: 'apps' },
    });
    const order: string[] = [];
    const slow = call(cluster, '/api/v1/namespaces/apps/configmaps/slow').then((r) =>
      order.push(`slow:${r.status}`),
    );
    await eventually(() => sleeps.length === 1);
    expect(sleeps[0]?.ms).toBe(200);
    await call(cluster, '/api/v1/namespaces/apps/configmaps').then((r) =>
      order.push(`list:${r.status}`),
    );
    expect(order).toEqual(['list:200']);
    sleeps.shift()?.release();
    await slow;
    expect(order).toEqual(['list:200', 'slow:200']);
    expect(cluster.faults.stats()).toMatchObject({ delayedRequests: 1, injectedDelayMs: 200 });
  });

  it('errors: rate 1 fails every matching call with the chosen code and a Status body', async () => {
    await cluster.faults.set({
      errors: [
        { rate: 1, code: 503, verbs: ['list'] },
        { rate: 1, code: 429, verbs: ['get'], resources: ['secrets'] },
      ],
    });
    for (let i = 0; i < 5; i++) {
      const res = await call(cluster, '/api/v1/namespaces/apps/configmaps');
      expect(res.status).toBe(503);
      expect(res.json()).toMatchObject({
        kind: 'Status',
        status: 'Failure',
        reason: 'ServiceUnavailable',
        code: 503,
      });
    }
    const throttled = await call(cluster, '/api/v1/namespaces/apps/secrets/x');
    expect(throttled.status).toBe(429);
    expect(throttled.headers['retry-after']).toBe('1');
    expect(throttled.json()).toMatchObject({ reason: 'TooManyRequests' });
    expect((await call(cluster, '/api/v1/namespaces/apps')).status).toBe(200);
    // A rate below the injected random value never fires.
    await cluster.faults.set({ errors: [{ rate: 0.4, code: 500 }] });
    expect((await call(cluster, '/api/v1/namespaces/apps/configmaps')).status).toBe(200);
    randomValue = 0.1;
    const failed = await call(cluster, '/api/v1/namespaces/apps/configmaps');
    randomValue = 0.5;
    expect(failed.json()).toMatchObject({ code: 500, reason: 'InternalError' });
    expect(cluster.faults.stats().injectedErrors).toBeGreaterThanOrEqual(7);
  });

  it('hang: a matching request stays pending until the fault is cleared', async () => {
    await cluster.faults.set({ hang: { resources: ['configmaps'] } });
    let settled = false;
    const pending = call(cluster, '/api/v1/namespaces/apps/configmaps').then((r) => {
      settled = true;
      return r;
    });
    await eventually(() => cluster.faults.stats().hanging === 1);
    expect((await call(cluster, '/api/v1/namespaces')).status).toBe(200);
    expect(settled).toBe(false);
    await cluster.faults.clear('hang');
    expect((await pending).status).toBe(200);
  });

  it('down: connections are refused, then the cluster returns on the same port', async () => {
    const port = cluster.port;
    await cluster.faults.set({ down: true });
    await expect(call(cluster, '/api/v1/namespaces')).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
    await cluster.faults.clear('down');
    expect(cluster.port).toBe(port);
    expect((await call(cluster, '/api/v1/namespaces')).status).toBe(200);
    // Refused connections never reach the cluster, so only the successful call is counted.
    expect(cluster.requests.count({ verb: 'list', resource: 'namespaces' })).toBe(1);
  });

  it('closeWatches: open watch streams end', async () => {
    const watch = await open(
      cluster,
      '/api/v1/namespaces/apps/configmaps?watch=true&allowWatchBookmarks=true',
    );
    expect(watch.statusCode).toBe(200);
    await eventually(() => cluster.openWatches() === 1);
    const reading = readEvents(watch, Number.MAX_SAFE_INTEGER);
    expect(cluster.faults.closeWatches()).toBe(1);
    const { ended } = await reading;
    expect(ended).toBe(true);
    expect(cluster.openWatches()).toBe(0);
  });
});

describe('kube-sim outage (down)', () => {
  // A bound on set(), not a measure of its speed: closing the listener alone would wait for
  // the 2-minute TLS handshake timeout of a connection that never finished its handshake.
  const BOUND_MS = 2000;

  it('destroys connections still in their TLS handshake, and set() resolves', async () => {
    const silent = await tcpConnection(cluster);
    const hello = await tcpConnection(cluster);
    const answered = new Promise((resolve) => hello.once('data', resolve));
    hello.write(await clientHello());
    try {
      await answered; // the server's hello: it waits for the client's next flight, mid-handshake
      await eventually(() => cluster.openConnections() === 2);
      expect(cluster.requests.connections()).toBe(0); // neither completed a handshake
      await settlesWithin(cluster.faults.set({ down: true }), BOUND_MS);
      await settlesWithin(Promise.all([closed(silent), closed(hello)]), BOUND_MS);
      expect(cluster.openConnections()).toBe(0);
      await expect(call(cluster, '/api/v1/namespaces')).rejects.toMatchObject({
        code: 'ECONNREFUSED',
      });
    } finally {
      silent.destroy();
      hello.destroy();
    }
  });

  it('closes an idle keep-alive connection; the next request on its agent is refused', async () => {
    const agent = new Agent({ keepAlive: true, ca: Buffer.from(cluster.caData ?? '', 'base64') });
    try {
      expect((await call(cluster, '/api/v1/namespaces', { agent })).status).toBe(200);
      const [pooled] = Object.values(agent.freeSockets).flat();
      expect(pooled).toBeDefined();
      await settlesWithin(cluster.faults.set({ down: true }), BOUND_MS);
      if (pooled !== undefined) await settlesWithin(closed(pooled), BOUND_MS);
      await expect(call(cluster, '/api/v1/namespaces', { agent })).rejects.toMatchObject({
        code: 'ECONNREFUSED',
      });
      expect(cluster.requests.count({ verb: 'list', resource: 'namespaces' })).toBe(1);
    } finally {
      agent.destroy();
    }
  });

  it('errors: a reused keep-alive connection meets the fault from the next request on', async () => {
    const agent = new Agent({ keepAlive: true, ca: Buffer.from(cluster.caData ?? '', 'base64') });
    try {
      expect((await call(cluster, '/api/v1/namespaces/apps/configmaps', { agent })).status).toBe(
        200,
      );
      await cluster.faults.set({ errors: [{ rate: 1, code: 503 }] });
      const failed = await call(cluster, '/api/v1/namespaces/apps/configmaps', { agent });
      expect(failed.status).toBe(503);
      expect(failed.json()).toMatchObject({ reason: 'ServiceUnavailable' });
      expect(cluster.requests.connections()).toBe(1); // the same connection carried both
    } finally {
      agent.destroy();
    }
  });
});

describe('kube-sim request accounting', () => {
  it('counts every request by verb, resource, namespace and name, including injected failures', async () => {
    await call(cluster, '/api/v1/namespaces/apps/configmaps', {
      method: 'POST',
      body: { metadata: { name: 'counted' } },
    });
    await call(cluster, '/api/v1/namespaces/apps/configmaps/counted');
    await cluster.faults.set({ errors: [{ rate: 1, code: 500, verbs: ['get'] }] });
    await call(cluster, '/api/v1/namespaces/apps/configmaps/counted');
    await cluster.faults.clear();
    await call(cluster, '/apis/coordination.k8s.io/v1/namespaces/apps/leases');
    await call(cluster, '/api/v1/namespaces/apps/configmaps/counted', {
      method: 'PATCH',
      body: { data: { a: '1' } },
      contentType: 'application/merge-patch+json',
    });
    await call(cluster, '/api');
    const snap = cluster.requests.snapshot();
    expect(snap.total).toBe(5);
    expect(snap.nonResource).toBe(1);
    expect(snap.byVerb).toMatchObject({ create: 1, get: 2, list: 1, patch: 1, watch: 0 });
    expect(snap.byResource).toEqual({ configmaps: 4, 'leases.coordination.k8s.io': 1 });
    expect(snap.byNamespace).toEqual({ apps: 5 });
    expect(snap.byName).toEqual({ 'apps/counted': 3 });
    expect(cluster.requests.count({ verb: 'get', resource: 'configmaps', name: 'counted' })).toBe(
      2,
    );
    expect(fleet.cluster('dev').requests.count()).toBe(0);
  });

  it('exposes counters and faults through the admin endpoint', async () => {
    await call(cluster, '/api/v1/namespaces/apps/configmaps');
    await call(cluster, '/api/v1/namespaces/apps/configmaps');
    expect(
      (await admin('GET', '/clusters/management/requests?verb=list&resource=configmaps')).json,
    ).toEqual({ count: 2 });
    const snapshot = (await admin('GET', '/clusters/management/requests')).json as {
      total: number;
    };
    expect(snapshot.total).toBe(2);
    expect((await admin('DELETE', '/clusters/management/requests')).status).toBe(204);
    expect(cluster.requests.count()).toBe(0);

    expect(
      (await admin('PUT', '/clusters/management/faults', { errors: [{ rate: 1, code: 503 }] }))
        .status,
    ).toBe(200);
    expect((await call(cluster, '/api/v1/namespaces')).status).toBe(503);
    expect((await admin('GET', '/clusters/management/faults')).json).toMatchObject({
      faults: { errors: [{ rate: 1, code: 503 }] },
    });
    expect((await admin('DELETE', '/clusters/management/faults/errors')).status).toBe(204);
    expect((await call(cluster, '/api/v1/namespaces')).status).toBe(200);
    expect((await admin('PUT', '/clusters/management/faults', { bogus: 1 })).status).toBe(400);

    const watch = await open(cluster, '/api/v1/namespaces/apps/configmaps?watch=true');
    await eventually(() => cluster.openWatches() === 1);
    const reading = readEvents(watch, Number.MAX_SAFE_INTEGER);
    expect((await admin('POST', '/clusters/management/faults/close-watches')).json).toEqual({
      closed: 1,
    });
    expect((await reading).ended).toBe(true);
    const clusters = (await admin('GET', '/clusters')).json as { name: string }[];
    expect(clusters.map((c) => c.name)).toEqual(['management', 'dev']);
    expect((await admin('GET', '/clusters/nope/requests')).status).toBe(404);
  });
});
