/**
 * KubeLeaseStore through the real client-node against kube-sim: MicroTimes go out with six
 * fractional digits and come back as strings, preconditions answer conflicts, and RBAC
 * refusals and absent Leases are answered, never thrown.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentPool } from '../../src/kube/agent-pool.js';
import { KubeCalls } from '../../src/kube/request-options.js';
import { KubeLeaseStore } from '../../src/kube/lease.js';
import type { LeaseObject } from '../../src/kube/ports.js';
import { startFleet, type Fleet, type SimCluster } from 'kube-sim';

const NS = 'leases';
const LEASE_API = 'coordination.k8s.io/v1';

const pool = new AgentPool();
let fleet: Fleet;
let cluster: SimCluster;

function storeFor(user: string): KubeLeaseStore {
  const kc = new KubeConfig();
  kc.loadFromString(cluster.kubeconfig(user));
  return new KubeLeaseStore(kc, new KubeCalls(5_000, pool));
}

function lease(name: string, holder: string): LeaseObject {
  return {
    metadata: { name, namespace: NS },
    spec: {
      holderIdentity: holder,
      leaseDurationSeconds: 15,
      acquireTime: '2026-11-21T10:00:00.123000Z',
      renewTime: '2026-11-21T10:00:05.000000Z',
      leaseTransitions: 0,
    },
  };
}

beforeAll(async () => {
  fleet = await startFleet({ clusters: ['management'] });
  cluster = fleet.cluster('management');
  cluster.ensureNamespace(NS);
  cluster.addUser('elector', [
    { verbs: ['get', 'create', 'update'], resources: ['leases.coordination.k8s.io'] },
  ]);
  cluster.addUser('nobody', []);
});
afterAll(async () => {
  pool.clear();
  await fleet.close();
});

describe('KubeLeaseStore on kube-sim', () => {
  it('creates, reads and replaces a Lease with MicroTime fields', async () => {
    const store = storeFor('elector');
    expect(await store.get(NS, 'a')).toEqual({ ok: true, value: undefined });

    const created = await store.create(lease('a', 'gw-1'));
    if (!created.ok) throw new Error(`create failed: ${JSON.stringify(created)}`);
    expect(created.value.spec).toEqual(lease('a', 'gw-1').spec);
    const stored = cluster.get(LEASE_API, 'Lease', NS, 'a') as { spec: Record<string, unknown> };
    expect(stored.spec.acquireTime).toBe('2026-11-21T10:00:00.123000Z');

    const read = await store.get(NS, 'a');
    expect(read).toEqual({ ok: true, value: created.value });

    const replaced = await store.replace({
      metadata: created.value.metadata,
      spec: { ...created.value.spec, holderIdentity: 'gw-2', leaseTransitions: 1 },
    });
    expect(replaced).toMatchObject({
      ok: true,
      value: { spec: { holderIdentity: 'gw-2', leaseTransitions: 1 } },
    });
  });

  it('answers a conflict for an existing name or a stale resourceVersion', async () => {
    const store = storeFor('elector');
    const first = await store.create(lease('b', 'gw-1'));
    if (!first.ok) throw new Error('create failed');
    expect(await store.create(lease('b', 'gw-2'))).toEqual({ ok: false, conflict: true });

    // A renewal changes renewTime (an unchanged object would keep its resourceVersion).
    const renewed = await store.replace({
      metadata: first.value.metadata,
      spec: { ...first.value.spec, renewTime: '2026-11-21T10:00:07.000000Z' },
    });
    expect(renewed.ok).toBe(true);
    // The first version is stale now: whoever writes with it lost the race.
    expect(await store.replace({ metadata: first.value.metadata, spec: {} })).toEqual({
      ok: false,
      conflict: true,
    });
  });

  it('classifies a refusal instead of throwing', async () => {
    const store = storeFor('nobody');
    expect(await store.get(NS, 'a')).toMatchObject({ ok: false, reason: 'Forbidden' });
    expect(await store.create(lease('c', 'gw-1'))).toMatchObject({
      ok: false,
      conflict: false,
      reason: 'Forbidden',
    });
  });
});
