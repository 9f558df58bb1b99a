/**
 * CRD schema handling over the wire: the Flux and weave-gitops CRDs load, the fixture objects
 * validate, invalid objects get 422 with Status causes, unknown fields are pruned (or 400 with
 * fieldValidation=Strict), and the basic error Statuses match the real server's.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyFiles, parseManifests, startFleet } from '../src/index.js';
import type { Fleet, SimCluster, SimObject } from '../src/index.js';
import { call, open, readEvents } from './helpers.js';

const fixtures = fileURLToPath(new URL('../../../test/fixtures/', import.meta.url));
const hrPath = '/apis/helm.toolkit.fluxcd.io/v2/namespaces/apps/helmreleases';
let fleet: Fleet;
let management: SimCluster;
let dev: SimCluster;

beforeAll(async () => {
  fleet = await startFleet({ clusters: ['management', 'dev'] });
  management = fleet.cluster('management');
  dev = fleet.cluster('dev');
});

afterAll(async () => {
  await fleet.close();
});

function helmRelease(name: string, spec: Record<string, unknown>): Record<string, unknown> {
  return {
    apiVersion: 'helm.toolkit.fluxcd.io/v2',
    kind: 'HelmRelease',
    metadata: { name, namespace: 'apps' },
    spec,
  };
}

describe('kube-sim CRD schemas', () => {
  it('loads every Flux CRD and the Pipeline CRDs, and the fixture objects validate', async () => {
    const crds = (await readdir(join(fixtures, 'flux/crds')))
      .filter((f) => !f.includes('v1.4.5'))
      .map((f) => join(fixtures, 'flux/crds', f));
    const objects = (await readdir(join(fixtures, 'flux/objects'))).map((f) =>
      join(fixtures, 'flux/objects', f),
    );
    const stored = await applyFiles(management, [
      ...crds,
      join(fixtures, 'weave-gitops/pipelines.weave.works_pipelines.yaml'),
      ...objects,
    ]);
    expect(stored.filter((o) => o.kind === 'HelmRelease')).toHaveLength(3);
    // The older HelmRelease CRD (v2beta2 still served) and the promotion-status Pipeline CRD load too.
    await applyFiles(dev, [
      join(fixtures, 'flux/crds/helm.toolkit.fluxcd.io_helmreleases.v1.4.5.yaml'),
      join(fixtures, 'weave-gitops/with-promotion-status/pipelines.weave.works_pipelines.yaml'),
    ]);
    const discovery = await call(dev, '/apis/helm.toolkit.fluxcd.io/v2beta2');
    expect(discovery.status).toBe(200);
    const resources = discovery.json().resources as { name: string; shortNames?: string[] }[];
    expect(resources.map((r) => r.name)).toEqual(['helmreleases', 'helmreleases/status']);
    expect(resources[0]?.shortNames).toEqual(['hr']);
    const samples = (await readdir(join(fixtures, 'weave-gitops/samples'))).map((f) =>
      join(fixtures, 'weave-gitops/samples', f),
    );
    const pipelines: SimObject[] = [];
    for (const file of samples) {
      pipelines.push(
        ...parseManifests(await readFile(file, 'utf8')).filter((o) => o.kind === 'Pipeline'),
      );
    }
    expect(pipelines.length).toBeGreaterThan(0);
    for (const p of pipelines)
      management.ensureNamespace(String((p.metadata as Record<string, unknown>).namespace));
    expect(() => pipelines.map((p) => management.apply(p))).not.toThrow();
  });

  it('rejects an object breaking the schema with 422 and a Status listing the causes', async () => {
    const res = await call(management, hrPath, {
      method: 'POST',
      body: helmRelease('bad', { interval: 5, chart: { spec: {} }, timeout: 'soon' }),
    });
    expect(res.status).toBe(422);
    const status = res.json();
    expect(status).toMatchObject({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      reason: 'Invalid',
      code: 422,
    });
    const details = status.details as {
      name: string;
      group: string;
      kind: string;
      causes: { reason: string; field: string; message: string }[];
    };
    expect(details).toMatchObject({
      name: 'bad',
      group: 'helm.toolkit.fluxcd.io',
      kind: 'HelmRelease',
    });
    const byField = Object.fromEntries(details.causes.map((c) => [c.field, c]));
    expect(byField['spec.interval']?.reason).toBe('FieldValueTypeInvalid');
    expect(byField['spec.chart.spec.chart']).toMatchObject({
      reason: 'FieldValueRequired',
      message: 'Required value',
    });
    expect(byField['spec.chart.spec.sourceRef']?.reason).toBe('FieldValueRequired');
    expect(byField['spec.timeout']?.reason).toBe('FieldValueInvalid');
    expect(String(status.message)).toMatch(
      /^HelmRelease\.helm\.toolkit\.fluxcd\.io "bad" is invalid: \[/,
    );
    expect(
      management.get('helm.toolkit.fluxcd.io/v2', 'HelmRelease', 'apps', 'bad'),
    ).toBeUndefined();
  });

  it('prunes unknown fields, or rejects them with fieldValidation=Strict', async () => {
    const spec = {
      interval: '5m',
      chartRef: { kind: 'OCIRepository', name: 'podinfo' },
      surprise: true,
    };
    const pruned = await call(management, hrPath, {
      method: 'POST',
      body: helmRelease('pruned', spec),
    });
    expect(pruned.status).toBe(201);
    expect(pruned.json().spec).toEqual({
      interval: '5m',
      chartRef: { kind: 'OCIRepository', name: 'podinfo' },
    });
    const strict = await call(management, `${hrPath}?fieldValidation=Strict`, {
      method: 'POST',
      body: helmRelease('strict', spec),
    });
    expect(strict.status).toBe(400);
    expect(strict.json()).toMatchObject({
      reason: 'BadRequest',
      message:
        'HelmRelease in version "v2" cannot be handled as a HelmRelease: strict decoding error: unknown field "spec.surprise"',
    });
  });

  it('answers NotFound, AlreadyExists, Unauthorized and unsupported patches with real Statuses', async () => {
    const missingNs = await call(management, '/api/v1/namespaces/nowhere/configmaps', {
      method: 'POST',
      body: { metadata: { name: 'x' } },
    });
    expect(missingNs.status).toBe(404);
    expect(missingNs.json()).toMatchObject({
      reason: 'NotFound',
      message: 'namespaces "nowhere" not found',
      details: { name: 'nowhere', kind: 'namespaces' },
    });
    const dup = await call(management, hrPath, {
      method: 'POST',
      body: helmRelease('pruned', {
        interval: '1m',
        chartRef: { kind: 'OCIRepository', name: 'x' },
      }),
    });
    expect(dup.json()).toMatchObject({
      code: 409,
      reason: 'AlreadyExists',
      message: 'helmreleases.helm.toolkit.fluxcd.io "pruned" already exists',
    });
    const anon = await call(management, hrPath, { token: null });
    expect(anon.status).toBe(401);
    expect(anon.json()).toMatchObject({ reason: 'Unauthorized', message: 'Unauthorized' });
    const apply = await call(management, `${hrPath}/pruned`, {
      method: 'PATCH',
      body: '{}',
      contentType: 'application/apply-patch+yaml',
    });
    expect(apply.status).toBe(415);
    expect(apply.json().reason).toBe('UnsupportedMediaType');
    const gone = await call(management, `${hrPath}/nothing`);
    expect(gone.json()).toMatchObject({
      code: 404,
      message: 'helmreleases.helm.toolkit.fluxcd.io "nothing" not found',
    });
  });

  it('streams a 410 Expired ERROR event for a compacted resourceVersion', async () => {
    const rv = management.resourceVersion();
    management.ensureNamespace('later');
    management.compact();
    const res = await open(management, `/api/v1/namespaces?watch=true&resourceVersion=${rv}`);
    expect(res.statusCode).toBe(200);
    const { events, ended } = await readEvents(res, 2);
    expect(ended).toBe(true);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'ERROR',
      object: { kind: 'Status', code: 410, reason: 'Expired' },
    });
  });
});
