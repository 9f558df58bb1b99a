/**
 * The token controller and ServiceAccount tokens: a `kubernetes.io/service-account-token`
 * Secret gets token, ca.crt and namespace in a write of its own (watchers see it created
 * empty, then filled); the token may do what the stored RBAC objects grant its ServiceAccount
 * at the time of each request (get/list HelmReleases here, 403 with the real wording for
 * Secrets or watch); deleting the Secret or the ServiceAccount revokes it, and a token Secret
 * for a missing ServiceAccount is deleted, as upstream.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyFiles, SimCluster } from '../src/index.js';
import type { SimObject } from '../src/index.js';
import { call, open, readEvents } from './helpers.js';

const fixtures = fileURLToPath(new URL('../../../test/fixtures/', import.meta.url));
const RBAC = 'rbac.authorization.k8s.io/v1';
const HR = '/apis/helm.toolkit.fluxcd.io/v2';
let cluster: SimCluster;

const account = (name: string): SimObject => ({
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: { name, namespace: 'flux-system' },
});
const tokenSecret = (name: string, accountName: string): SimObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  type: 'kubernetes.io/service-account-token',
  metadata: {
    name,
    namespace: 'flux-system',
    annotations: { 'kubernetes.io/service-account.name': accountName },
  },
});
const readerBinding = (name: string): SimObject => ({
  apiVersion: RBAC,
  kind: 'ClusterRoleBinding',
  metadata: { name },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'reader' },
  subjects: [{ kind: 'ServiceAccount', name, namespace: 'flux-system' }],
});

function tokenOf(secretName: string): string {
  const secret = cluster.get('v1', 'Secret', 'flux-system', secretName);
  const data = (secret?.data ?? {}) as Record<string, string>;
  return Buffer.from(data.token ?? '', 'base64').toString('utf8');
}

beforeAll(async () => {
  cluster = await SimCluster.start({ name: 'tokens' });
  await applyFiles(cluster, [join(fixtures, 'flux/crds/helm.toolkit.fluxcd.io_helmreleases.yaml')]);
  for (const ns of ['flux-system', 'apps']) cluster.ensureNamespace(ns);
  cluster.apply({
    apiVersion: RBAC,
    kind: 'ClusterRole',
    metadata: { name: 'reader' },
    rules: [
      {
        apiGroups: ['helm.toolkit.fluxcd.io'],
        resources: ['helmreleases'],
        verbs: ['get', 'list'],
      },
    ],
  });
});
afterAll(async () => {
  await cluster.close();
});

describe('the token controller', () => {
  it('fills a token Secret in a write of its own: token, ca.crt, namespace, uid', async () => {
    const sa = cluster.apply(account('filled'));
    const watch = await open(
      cluster,
      `/api/v1/namespaces/flux-system/secrets?watch=true&resourceVersion=${cluster.resourceVersion()}`,
    );
    const created = cluster.apply(tokenSecret('filled-token', 'filled'));
    expect(created.data).toBeUndefined();
    const { events } = await readEvents(watch, 2);
    watch.destroy();
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED']);
    expect(events[0]?.object.data).toBeUndefined();
    const stored = cluster.get('v1', 'Secret', 'flux-system', 'filled-token');
    expect(stored).toEqual(events[1]?.object);
    expect(stored?.data).toEqual({
      token: expect.any(String) as unknown,
      'ca.crt': cluster.caData,
      namespace: Buffer.from('flux-system').toString('base64'),
    });
    expect(stored?.metadata).toMatchObject({
      annotations: { 'kubernetes.io/service-account.uid': (sa.metadata as { uid: string }).uid },
    });
    const [, claims = ''] = tokenOf('filled-token').split('.');
    expect(JSON.parse(Buffer.from(claims, 'base64url').toString('utf8'))).toMatchObject({
      iss: 'kubernetes/serviceaccount',
      sub: 'system:serviceaccount:flux-system:filled',
      'kubernetes.io/serviceaccount/secret.name': 'filled-token',
    });
  });

  it('deletes a token Secret whose ServiceAccount does not exist, as upstream', () => {
    cluster.apply(tokenSecret('orphan-token', 'nobody'));
    expect(cluster.get('v1', 'Secret', 'flux-system', 'orphan-token')).toBeUndefined();
  });

  it('leaves out ca.crt on a plain-HTTP cluster, which has no CA', async () => {
    const plain = await SimCluster.start({ name: 'plain', tls: false });
    try {
      plain.ensureNamespace('flux-system');
      plain.apply(account('plain'));
      plain.apply(tokenSecret('plain-token', 'plain'));
      const data = plain.get('v1', 'Secret', 'flux-system', 'plain-token')?.data;
      expect(Object.keys(data ?? {}).sort()).toEqual(['namespace', 'token']);
    } finally {
      await plain.close();
    }
  });
});

describe('ServiceAccount tokens', () => {
  it('may do what the bound roles grant, decided at each request, and nothing else', async () => {
    cluster.apply(account('reader'));
    cluster.apply(tokenSecret('reader-token', 'reader'));
    cluster.apply(readerBinding('reader'));
    const token = tokenOf('reader-token');
    expect((await call(cluster, `${HR}/helmreleases`, { token })).status).toBe(200);
    expect((await call(cluster, `${HR}/namespaces/apps/helmreleases`, { token })).status).toBe(200);
    const secrets = await call(cluster, '/api/v1/namespaces/flux-system/secrets', { token });
    expect(secrets.status).toBe(403);
    expect(secrets.json().message).toBe(
      'secrets is forbidden: User "system:serviceaccount:flux-system:reader" cannot list resource "secrets" in API group "" in the namespace "flux-system"',
    );
    const watch = await call(cluster, `${HR}/helmreleases?watch=true`, { token });
    expect(watch.status).toBe(403);

    cluster.delete(RBAC, 'ClusterRoleBinding', '', 'reader');
    expect((await call(cluster, `${HR}/helmreleases`, { token })).status).toBe(403);
    cluster.apply({
      ...readerBinding('reader'),
      kind: 'RoleBinding',
      metadata: { name: 'reader', namespace: 'apps' },
    });
    expect((await call(cluster, `${HR}/namespaces/apps/helmreleases`, { token })).status).toBe(200);
    expect(
      (await call(cluster, `${HR}/namespaces/flux-system/helmreleases`, { token })).status,
    ).toBe(403);
    expect((await call(cluster, `${HR}/helmreleases`, { token })).status).toBe(403);
  });

  it('is revoked with its Secret, and with its ServiceAccount (whose token Secrets go too)', async () => {
    cluster.apply(account('revoked'));
    cluster.apply(readerBinding('revoked'));
    cluster.apply(tokenSecret('revoked-token', 'revoked'));
    const first = tokenOf('revoked-token');
    expect((await call(cluster, `${HR}/helmreleases`, { token: first })).status).toBe(200);
    cluster.delete('v1', 'Secret', 'flux-system', 'revoked-token');
    expect((await call(cluster, `${HR}/helmreleases`, { token: first })).status).toBe(401);

    cluster.apply(tokenSecret('revoked-token-2', 'revoked'));
    const second = tokenOf('revoked-token-2');
    expect(second).not.toBe(first);
    expect((await call(cluster, `${HR}/helmreleases`, { token: second })).status).toBe(200);
    expect((await call(cluster, `${HR}/helmreleases`, { token: first })).status).toBe(401);
    cluster.delete('v1', 'ServiceAccount', 'flux-system', 'revoked');
    expect(cluster.get('v1', 'Secret', 'flux-system', 'revoked-token-2')).toBeUndefined();
    expect((await call(cluster, `${HR}/helmreleases`, { token: second })).status).toBe(401);
  });
});
