/**
 * Paged LISTs through the gateway's REST calls and kube-sim: every item of every page reaches
 * the visitor once, a page at a time, with its apiVersion and kind, the continue tokens are
 * followed, and failures are classified.
 */
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { applyFiles, SimCluster } from 'kube-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentPool } from '../../src/kube/agent-pool.js';
import type { KubeObject } from '../../src/kube/ports.js';
import { KubeObjectReader, LIST_PAGE_SIZE } from '../../src/kube/reader.js';
import { KubeCalls } from '../../src/kube/request-options.js';
import { PIPELINE } from '../../src/kube/resources.js';

const CRD = fileURLToPath(
  new URL('../fixtures/weave-gitops/pipelines.weave.works_pipelines.yaml', import.meta.url),
);
const API_VERSION = `${PIPELINE.group}/${PIPELINE.version}`;
const NS = 'many';
/** Two full pages and a part of a third. */
const OBJECTS = 2 * LIST_PAGE_SIZE + 234;

const pool = new AgentPool();
let cluster: SimCluster;
let reader: KubeObjectReader;

function pipeline(i: number, namespace = NS): KubeObject {
  return {
    apiVersion: API_VERSION,
    kind: 'Pipeline',
    metadata: {
      name: `p${String(i)}`,
      namespace,
      annotations: { note: `"items":[{}] #${String(i)}` },
    },
    spec: {
      appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'podinfo' },
      environments: [{ name: 'dev', targets: [{ namespace }] }],
    },
  };
}

beforeAll(async () => {
  cluster = await SimCluster.start({ name: 'lists' });
  await applyFiles(cluster, [CRD]);
  cluster.ensureNamespace(NS);
  cluster.ensureNamespace('other');
  for (let i = 0; i < OBJECTS; i++) cluster.apply(pipeline(i));
  cluster.apply(pipeline(0, 'other'));
  const kc = new KubeConfig();
  kc.loadFromString(cluster.kubeconfig());
  reader = new KubeObjectReader(kc, new KubeCalls(10_000, pool));
});

afterAll(async () => {
  pool.clear();
  await cluster.close();
});

describe('a paged LIST', () => {
  it('visits every object of every page once, a page at a time, with its apiVersion and kind', async () => {
    const batches: (readonly KubeObject[])[] = [];
    cluster.requests.reset();
    const result = await reader.list(API_VERSION, 'Pipeline', NS, (items) => batches.push(items));
    expect(result).toEqual({ ok: true, value: OBJECTS });
    const seen = batches.flat();
    expect(seen).toHaveLength(OBJECTS);
    expect(new Set(seen.map((o) => o.metadata.name)).size).toBe(OBJECTS);
    expect(seen.every((o) => o.apiVersion === API_VERSION && o.kind === 'Pipeline')).toBe(true);
    expect(seen.every((o) => o.metadata.namespace === NS)).toBe(true);
    // The annotation that spells a List's items survived as it was stored.
    expect(seen.find((o) => o.metadata.name === 'p7')?.metadata.annotations).toEqual({
      note: '"items":[{}] #7',
    });
    expect(batches.map((b) => b.length)).toEqual([LIST_PAGE_SIZE, LIST_PAGE_SIZE, 234]);
    expect(cluster.requests.count({ verb: 'list', namespace: NS })).toBe(3);
  });

  it('lists across namespaces too', async () => {
    let listed = 0;
    const result = await reader.list(API_VERSION, 'Pipeline', undefined, (items) => {
      listed += items.length;
    });
    expect(result).toEqual({ ok: true, value: OBJECTS + 1 });
    expect(listed).toBe(OBJECTS + 1);
  });

  it('classifies a failed LIST by its reason, visiting nothing', async () => {
    let visited = 0;
    const result = await reader.list('helm.toolkit.fluxcd.io/v2', 'HelmRelease', NS, () => {
      visited++;
    });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toBe('NotFound');
    expect(visited).toBe(0);
  });
});
