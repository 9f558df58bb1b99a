/**
 * A status PUT's answer is not parsed (src/kube/resource-version.ts): the writer's stored
 * object is the one it sent with the answer's resourceVersion. Through kube-sim and the real
 * client-node and the CRD the gateway ships, that object is what a fresh GET returns, and 409s
 * still come back as conflicts.
 */
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { applyFiles, startFleet, type Fleet } from 'kube-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentPool } from '../../src/kube/agent-pool.js';
import { KubePipelineWriter } from '../../src/kube/pipeline-writer.js';
import type { KubeObject } from '../../src/kube/ports.js';
import { KubeCalls } from '../../src/kube/request-options.js';
import { PIPELINE } from '../../src/kube/resources.js';

const CRD = fileURLToPath(
  new URL('../../manifests/crd/pipelines.weave.works_pipelines.yaml', import.meta.url),
);
const NS = 'apps';
const pool = new AgentPool();
let fleet: Fleet;
let writer: KubePipelineWriter;

beforeAll(async () => {
  fleet = await startFleet({ clusters: ['management'] });
  const management = fleet.cluster('management');
  await applyFiles(management, [CRD]);
  management.ensureNamespace(NS);
  management.apply({
    apiVersion: `${PIPELINE.group}/${PIPELINE.version}`,
    kind: 'Pipeline',
    metadata: { name: 'p1', namespace: NS, annotations: { resourceVersion: 'not this one' } },
    spec: {
      appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'podinfo' },
      environments: [{ name: 'dev', targets: [{ namespace: NS }] }],
    },
  });
  const kc = new KubeConfig();
  kc.loadFromString(management.kubeconfig());
  writer = new KubePipelineWriter(kc, new KubeCalls(10_000, pool), 'test');
});

afterAll(async () => {
  pool.clear();
  await fleet.close();
});

function withoutBookkeeping(object: KubeObject): unknown {
  const { managedFields: _, ...metadata } = object.metadata as KubeObject['metadata'] & {
    managedFields?: unknown;
  };
  return { ...object, metadata };
}

describe('status PUT answer', () => {
  it('is the stored object: what a fresh GET returns after the write', async () => {
    const current = await writer.get(NS, 'p1');
    if (current === undefined) throw new Error('p1 is missing');
    const status = {
      observedGeneration: 1,
      environments: {
        dev: {
          targets: [
            {
              clusterAppRef: {
                kind: 'HelmRelease',
                name: 'podinfo',
                apiVersion: 'helm.toolkit.fluxcd.io/v2',
              },
              ready: true,
              revision: '1.0.0',
            },
          ],
        },
      },
    };
    const written = await writer.replaceStatus({ ...current, status });
    if (written.conflict) throw new Error('unexpected conflict');
    const fresh = await writer.get(NS, 'p1');
    if (fresh === undefined) throw new Error('p1 is gone');
    expect(written.value.metadata.resourceVersion).not.toBe(current.metadata.resourceVersion);
    expect(withoutBookkeeping(written.value)).toEqual(withoutBookkeeping(fresh));

    // The answer's resourceVersion is the precondition of the next write, which lands.
    const next = await writer.replaceStatus({
      ...written.value,
      status: { ...status, observedGeneration: 1 },
    });
    expect(next.conflict).toBe(false);
    // The version read before both writes is stale now: a 409, reported as a conflict.
    expect(await writer.replaceStatus({ ...current, status })).toEqual({ conflict: true });
  });
});
