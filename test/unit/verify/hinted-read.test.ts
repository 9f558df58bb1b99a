/**
 * What a hint turns into, on fakes: one read of the named object, stored, and a re-check of
 * every Pipeline that references it; nothing at all for an object no Pipeline references.
 */
import { describe, expect, it } from 'vitest';
import type { RecheckSource } from '../../../src/hints/sinks.js';
import { createLogger } from '../../../src/log.js';
import type { PipelineId } from '../../../src/pipeline/id.js';
import type { ObjectKey } from '../../../src/pipeline/object-key.js';
import { HintedReader } from '../../../src/verify/hinted-read.js';
import { MGMT, reconcileRig } from '../../support/reconcile-rig.js';

function key(namespace: string, name = 'app'): ObjectKey {
  return { cluster: MGMT, group: 'helm.toolkit.fluxcd.io', kind: 'HelmRelease', namespace, name };
}

function setup() {
  const rig = reconcileRig({ dev: '1.1.0', staging: '1.0.0', prod: '1.0.0' });
  const requests: [PipelineId, RecheckSource][] = [];
  const reader = new HintedReader({
    catalog: rig.catalog,
    verified: rig.verified,
    logger: createLogger('silent'),
    pipelines: {
      requestPipeline: (id, source) => {
        requests.push([id, source]);
        return 'queued';
      },
    },
  });
  return { rig, requests, process: (k: ObjectKey) => reader.read(k) };
}

describe('HintedReader', () => {
  it('reads the object once, stores it and asks for a re-check of its Pipelines', async () => {
    const { rig, requests, process } = setup();
    expect(await process(key('dev'))).toBe('done');
    expect(rig.clusters.reads()).toEqual({ gets: 1, lists: 0 });
    expect(rig.verified.get(key('dev'))?.status).toMatchObject({
      health: 'Healthy',
      revision: '1.1.0',
    });
    expect(requests).toEqual([[rig.id, 'hint']]);
  });

  it('costs nothing for an object no Pipeline references', async () => {
    const { rig, requests, process } = setup();
    expect(await process(key('dev', 'unrelated'))).toBe('done');
    expect(rig.clusters.reads().gets).toBe(0);
    expect(requests).toEqual([]);
  });

  it('asks its queue to retry when the object cannot be read, still re-checking the Pipeline', async () => {
    const { rig, requests, process } = setup();
    rig.clusters.cluster(MGMT).failure = 'Timeout';
    expect(await process(key('staging'))).toBe('retry');
    expect(rig.verified.get(key('staging'))?.status).toMatchObject({
      health: 'Unknown',
      reason: 'Timeout',
    });
    expect(requests).toEqual([[rig.id, 'hint']]);
  });
});
