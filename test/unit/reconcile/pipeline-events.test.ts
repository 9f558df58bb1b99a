/**
 * The Pipeline watch's handler on fakes: the catalog follows the API server, a reference
 * change means a full read after cluster resolution, and an object that is no valid Pipeline
 * is dropped with a warning instead of being evaluated.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { PipelineCatalog } from '../../../src/catalog/catalog.js';
import { defaultConfig } from '../../../src/config/load.js';
import type { KubeObject } from '../../../src/kube/ports.js';
import { createLogger } from '../../../src/log.js';
import type { PipelineId } from '../../../src/pipeline/id.js';
import { pipelineEvents } from '../../../src/reconcile/pipeline-events.js';
import { rigPipeline } from '../../support/reconcile-rig.js';

function setup(started = true) {
  const catalog = new PipelineCatalog(defaultConfig({ management: { name: 'mgmt' } }));
  const calls: string[] = [];
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(chunk.toString('utf8'));
      done();
    },
  });
  const handler = pipelineEvents({
    catalog,
    requireFullRead: (id: PipelineId) => calls.push(`full-read ${id}`),
    forget: (id: PipelineId) => calls.push(`forget ${id}`),
    syncClusters: () => {
      calls.push('sync-clusters');
      return Promise.resolve();
    },
    pipelines: {
      requestPipeline: (id, source) => {
        calls.push(`request ${id} ${source}`);
        return 'queued';
      },
    },
    logger: createLogger('warn', sink),
    started: () => started,
    legacyKeys: {
      track: (id) => {
        calls.push(`track-key ${id}`);
        return Promise.resolve();
      },
      forget: (id) => calls.push(`forget-key ${id}`),
    },
    resumed: () => calls.push('resumed'),
  });
  return { catalog, calls, logs, handler };
}

const object = (): KubeObject => rigPipeline() as unknown as KubeObject;
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('pipelineEvents', () => {
  it('loads a new Pipeline: full read, clusters resolved first, then a re-check', async () => {
    const { catalog, calls, handler } = setup();
    handler.upsert(object());
    await settle();
    expect(catalog.size).toBe(1);
    expect(calls).toEqual([
      'track-key apps/app',
      'full-read apps/app',
      'sync-clusters',
      'request apps/app spec-change',
    ]);
  });

  it('re-checks without a full read when only other fields changed', async () => {
    const { calls, handler } = setup();
    handler.upsert(object());
    await settle();
    calls.length = 0;
    handler.upsert({ ...object(), metadata: { ...object().metadata, labels: { a: 'b' } } });
    await settle();
    expect(calls).toEqual(['track-key apps/app', 'request apps/app spec-change']);
  });

  it('only loads before start-up: the start-up pass LISTs every target, so no full read', async () => {
    const { catalog, calls, handler } = setup(false);
    handler.upsert(object());
    await settle();
    expect(catalog.size).toBe(1);
    expect(calls).toEqual(['track-key apps/app']);
  });

  it('drops an object that does not match the Pipeline schema, and says why', async () => {
    const { catalog, calls, logs, handler } = setup();
    handler.upsert(object());
    await settle();
    calls.length = 0;
    const broken = object();
    broken.spec = { appRef: { kind: 'HelmRelease', name: 'app' }, environments: [] };
    handler.upsert(broken);
    await settle();
    expect(catalog.size).toBe(0);
    expect(calls).toEqual(['forget-key apps/app', 'forget apps/app']);
    expect(logs.join('')).toContain('pipeline ignored: invalid');
    expect(logs.join('')).toContain('apiVersion');
  });

  it('warns once per streak of the same watch failure, and passes a resumed watch on', () => {
    const { calls, logs, handler } = setup();
    const failure = 'listing or watching Pipelines in the management cluster failed: down';
    handler.error(failure, 1000);
    handler.error(failure, 2000);
    expect(logs).toHaveLength(1);
    handler.resumed();
    expect(calls).toEqual(['resumed']);
    handler.error(failure, 1000);
    expect(logs).toHaveLength(2);
  });

  it('forgets a deleted Pipeline, its legacy key and what its checks kept (its view)', () => {
    const { catalog, calls, handler } = setup();
    handler.upsert(object());
    calls.length = 0;
    handler.remove('apps', 'app');
    expect(catalog.size).toBe(0);
    // Straight to the checks: the queue takes no check of a Pipeline not loaded.
    expect(calls).toEqual(['forget-key apps/app', 'forget apps/app']);
  });
});
