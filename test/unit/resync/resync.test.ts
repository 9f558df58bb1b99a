/**
 * One resync pass on fakes: one LIST per (cluster, namespace, kind) whatever the number of
 * Pipelines, every target stored, every Pipeline re-checked through the queue, and what is no
 * longer referenced forgotten.
 */
import { describe, expect, it } from 'vitest';
import { PipelineCatalog } from '../../../src/catalog/catalog.js';
import { defaultConfig } from '../../../src/config/load.js';
import type { RecheckSource } from '../../../src/hints/sinks.js';
import { createLogger } from '../../../src/log.js';
import { pipelineId, type PipelineId } from '../../../src/pipeline/id.js';
import type { Pipeline } from '../../../src/pipeline/pipeline-resource.js';
import { Resync } from '../../../src/resync/resync.js';
import { VerifiedTargets } from '../../../src/verify/verified-targets.js';
import { Verifier } from '../../../src/verify/verifier.js';
import { FakeClusters } from '../../support/fake-clusters.js';
import { FakeScheduler } from '../../support/fake-scheduler.js';

function pipeline(name: string, namespaces: string[], cluster?: string): Pipeline {
  return {
    apiVersion: 'pipelines.weave.works/v1alpha1',
    kind: 'Pipeline',
    metadata: { name, namespace: 'apps' },
    spec: {
      appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name },
      environments: namespaces.map((ns, i) => ({
        name: `e${i}`,
        targets: [
          cluster === undefined || i === 0
            ? { namespace: ns }
            : { namespace: ns, clusterRef: { kind: 'GitopsCluster' as const, name: cluster } },
        ],
      })),
    },
  };
}

function setup() {
  const config = defaultConfig({
    management: { name: 'mgmt' },
    clusters: [{ name: 'eu', gitopsCluster: { namespace: 'apps', name: 'eu' } }],
  });
  const catalog = new PipelineCatalog(config);
  const clusters = new FakeClusters();
  const scheduler = new FakeScheduler(Date.UTC(2026, 10, 24));
  const verified = new VerifiedTargets(new Verifier(clusters), () => scheduler.now());
  const requests: [PipelineId, RecheckSource][] = [];
  const resync = new Resync({
    catalog,
    verified,
    logger: createLogger('silent'),
    scheduler,
    random: () => 0.5,
    intervalMs: 60_000,
    jitter: 0,
    refreshCredentials: () => Promise.resolve(),
    pipelines: {
      requestPipeline: (id, source) => {
        requests.push([id, source]);
        return 'queued';
      },
    },
  });
  return { catalog, clusters, verified, requests, resync };
}

describe('Resync pass', () => {
  it('makes one LIST per cluster, namespace and kind, shared by every Pipeline', async () => {
    const { catalog, clusters, verified, requests, resync } = setup();
    for (const name of ['a', 'b', 'c']) {
      clusters.cluster('mgmt').release('dev', name, '1.0.0');
      clusters.cluster('eu').release('prod', name, '1.0.0');
      catalog.upsert(pipeline(name, ['dev', 'prod'], 'eu'));
    }
    const report = await resync.runOnce();
    expect(clusters.cluster('mgmt').lists).toBe(1);
    expect(clusters.cluster('eu').lists).toBe(1);
    expect(clusters.reads().gets).toBe(0);
    expect(report).toMatchObject({ scopes: 2, targets: 6, unknown: 0, pipelines: 3 });
    expect(verified.size).toBe(6);
    expect(requests.map(([id, source]) => `${id} ${source}`).sort()).toEqual([
      'apps/a resync',
      'apps/b resync',
      'apps/c resync',
    ]);
  });

  it('counts targets it cannot read as Unknown, and a missing object as NotFound', async () => {
    const { catalog, clusters, verified, resync } = setup();
    clusters.cluster('mgmt').release('dev', 'a', '1.0.0');
    catalog.upsert(pipeline('a', ['dev', 'prod'], 'eu'));
    catalog.upsert(pipeline('gone', ['dev']));
    clusters.cluster('eu').failure = 'Unavailable';
    const report = await resync.runOnce();
    expect(report.unknown).toBe(2);
    const key = (namespace: string, name: string, cluster: string) => ({
      cluster,
      group: 'helm.toolkit.fluxcd.io',
      kind: 'HelmRelease',
      namespace,
      name,
    });
    expect(verified.get(key('prod', 'a', 'eu'))?.status.reason).toBe('Unavailable');
    expect(verified.get(key('dev', 'gone', 'mgmt'))?.status.reason).toBe('NotFound');
  });

  it('forgets the verified state of objects no Pipeline references any more', async () => {
    const { catalog, clusters, verified, resync } = setup();
    clusters.cluster('mgmt').release('dev', 'a', '1.0.0');
    clusters.cluster('mgmt').release('dev', 'b', '1.0.0');
    catalog.upsert(pipeline('a', ['dev']));
    catalog.upsert(pipeline('b', ['dev']));
    await resync.runOnce();
    expect(verified.size).toBe(2);
    catalog.remove(pipelineId({ namespace: 'apps', name: 'b' }));
    await resync.runOnce();
    expect(verified.size).toBe(1);
  });

  it('shares a pass in progress between concurrent callers', async () => {
    const { catalog, clusters, resync } = setup();
    clusters.cluster('mgmt').release('dev', 'a', '1.0.0');
    catalog.upsert(pipeline('a', ['dev']));
    const [first, second] = await Promise.all([resync.runOnce(), resync.runOnce()]);
    expect(second).toBe(first);
    expect(clusters.cluster('mgmt').lists).toBe(1);
    expect(resync.completedPasses).toBe(1);
  });
});
