/**
 * The OpenAPI documents on the wire: /openapi/v2 as JSON or protobuf by Accept (406 otherwise),
 * with the fieldValidation parameter and patch types kubectl reads, ObjectMeta and each CRD
 * version's schema in v2 form (built-ins have none); /openapi/v3's index whose hashes are the
 * documents' SHA-512, a stale hash redirected, a matching one cacheable for good, and a hash
 * that moves only for the group-version whose CRD changed.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyFiles, SimCluster } from '../src/index.js';
import { toV2Schema } from '../src/openapi-v2.js';
import { call, open } from './helpers.js';

const fixtures = fileURLToPath(new URL('../../../test/fixtures/', import.meta.url));
const PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
let cluster: SimCluster;

beforeAll(async () => {
  cluster = await SimCluster.start({ name: 'openapi' });
  await applyFiles(cluster, [
    join(fixtures, 'flux/crds/helm.toolkit.fluxcd.io_helmreleases.yaml'),
    join(fixtures, 'weave-gitops/pipelines.weave.works_pipelines.yaml'),
  ]);
});
afterAll(async () => {
  await cluster.close();
});

type Json = Record<string, unknown>;
const at = (o: unknown, ...path: string[]): Json =>
  path.reduce<Json>((v, k) => (v[k] ?? {}) as Json, o as Json);

describe('GET /openapi/v2', () => {
  it('answers JSON with the operations kubectl reads and the CRD definitions only', async () => {
    const res = await call(cluster, '/openapi/v2');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    const doc = res.json();
    const cmPatch = at(doc, 'paths', '/api/v1/namespaces/{namespace}/configmaps/{name}', 'patch');
    expect(cmPatch['x-kubernetes-group-version-kind']).toEqual({
      group: '',
      version: 'v1',
      kind: 'ConfigMap',
    });
    expect(cmPatch.parameters).toContainEqual({
      name: 'fieldValidation',
      in: 'query',
      type: 'string',
      uniqueItems: true,
    });
    expect(cmPatch.consumes).toContain('application/strategic-merge-patch+json');
    const hrPath = '/apis/helm.toolkit.fluxcd.io/v2/namespaces/{namespace}/helmreleases/{name}';
    expect(at(doc, 'paths', hrPath, 'patch').consumes).toEqual([
      'application/json-patch+json',
      'application/merge-patch+json',
    ]);

    const definitions = at(doc, 'definitions');
    expect(Object.keys(definitions).filter((n) => n.startsWith('io.k8s.api.'))).toEqual([]);
    const hr = at(definitions, 'io.fluxcd.toolkit.helm.v2.HelmRelease');
    expect(hr['x-kubernetes-group-version-kind']).toEqual([
      { group: 'helm.toolkit.fluxcd.io', version: 'v2', kind: 'HelmRelease' },
    ]);
    expect(at(hr, 'properties', 'metadata')).toEqual({
      $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    });
    expect(at(hr, 'properties', 'spec', 'properties', 'interval').type).toBe('string');
    // values is x-kubernetes-preserve-unknown-fields: v2 keeps it open.
    expect(at(hr, 'properties', 'spec', 'properties', 'values').properties).toBeUndefined();
    expect(definitions['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']).toBeDefined();
    expect(definitions['works.weave.pipelines.v1alpha1.Pipeline']).toBeDefined();
  });

  it('answers protobuf to what client-go asks for, and 406 to what it cannot serve', async () => {
    const res = await open(cluster, '/openapi/v2', { headers: { Accept: PROTOBUF } });
    const chunks: Buffer[] = [];
    for await (const chunk of res) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe(
      'application/com.github.proto-openapi.spec.v2.v1.0+protobuf',
    );
    // Document.swagger (field 1, length-delimited) = "2.0" comes first.
    expect([...body.subarray(0, 5)]).toEqual([0x0a, 0x03, 0x32, 0x2e, 0x30]);
    expect(body.includes('io.fluxcd.toolkit.helm.v2.HelmRelease')).toBe(true);
    expect(body.includes('{"group":"","version":"v1","kind":"ConfigMap"}')).toBe(true);

    const refused = await call(cluster, '/openapi/v2', { headers: { Accept: 'text/plain' } });
    expect(refused.status).toBe(406);
    expect(refused.body).toBe('');
    expect((await call(cluster, '/openapi/v2', { token: null })).status).toBe(401);
  });

  it('converts a v3 schema as the apiextensions server does for v2', () => {
    const converted = toV2Schema({
      type: 'object',
      required: ['a', 'maybe'],
      properties: {
        a: { type: 'string', nullable: false, oneOf: [{ pattern: 'x' }] },
        maybe: { type: 'object', nullable: true, properties: { x: { type: 'string' } } },
        open: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: {} },
        list: { type: 'array' },
        port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }] },
      },
    });
    expect(converted).toEqual({
      type: 'object',
      required: ['a'],
      properties: {
        a: { type: 'string' },
        maybe: {},
        open: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        list: {},
        port: { 'x-kubernetes-int-or-string': true },
      },
    });
  });
});

describe('GET /openapi/v3', () => {
  const serverUrl = async (gv: string): Promise<string> => {
    const index = (await call(cluster, '/openapi/v3')).json();
    return String(at(index, 'paths', gv).serverRelativeURL);
  };

  it('hashes each document, redirects a stale hash and lets a matching one be cached', async () => {
    const url = await serverUrl('apis/helm.toolkit.fluxcd.io/v2');
    const res = await call(cluster, url);
    expect(res.status).toBe(200);
    const hash = createHash('sha512').update(res.body).digest('hex').toUpperCase();
    expect(url).toBe(`/openapi/v3/apis/helm.toolkit.fluxcd.io/v2?hash=${hash}`);
    expect(res.headers['cache-control']).toBe('public, immutable');
    expect(res.headers.etag).toBe(`"${hash}"`);
    const schema = at(res.json(), 'components', 'schemas', 'io.fluxcd.toolkit.helm.v2.HelmRelease');
    expect(schema['x-kubernetes-group-version-kind']).toEqual([
      { group: 'helm.toolkit.fluxcd.io', version: 'v2', kind: 'HelmRelease' },
    ]);

    const stale = await call(cluster, '/openapi/v3/apis/helm.toolkit.fluxcd.io/v2?hash=0BAD');
    expect(stale.status).toBe(301);
    expect(stale.headers.location).toBe(url);
    const unhashed = await call(cluster, '/openapi/v3/api/v1');
    expect(unhashed.headers['cache-control']).toBeUndefined();
    expect(at(unhashed.json(), 'components', 'schemas', 'io.k8s.api.core.v1.Secret')).toEqual({
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
      'x-kubernetes-group-version-kind': [{ group: '', version: 'v1', kind: 'Secret' }],
    });
  });

  it('moves the hash of a group-version when its CRD changes, and only that one', async () => {
    const before = await Promise.all(
      ['apis/pipelines.weave.works/v1alpha1', 'api/v1'].map(serverUrl),
    );
    await applyFiles(cluster, [
      join(fixtures, 'weave-gitops/with-promotion-status/pipelines.weave.works_pipelines.yaml'),
    ]);
    const after = await Promise.all(
      ['apis/pipelines.weave.works/v1alpha1', 'api/v1'].map(serverUrl),
    );
    expect(after[0]).not.toBe(before[0]);
    expect(after[1]).toBe(before[1]);
  });
});
