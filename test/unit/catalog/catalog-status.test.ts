import { describe, expect, it } from 'vitest';
import { PipelineCatalog } from '../../../src/catalog/catalog.js';
import { pipelineIdOf } from '../../../src/pipeline/id.js';
import type { HaltRecord, PipelineStatus } from '../../../src/pipeline/pipeline-resource.js';
import { samplePipeline } from '../../support/pipeline-fixtures.js';

const config = { management: { name: 'mgmt' }, clusters: [] };

const halt: HaltRecord = {
  id: 'h1',
  environment: 'prod',
  principal: 'alice',
  kind: 'human',
  reason: 'incident',
  time: '2026-11-26T10:00:00Z',
};

function statusAt(revision: string, halts?: HaltRecord[]): PipelineStatus {
  return {
    observedGeneration: 3,
    environments: {
      dev: {
        targets: [
          {
            clusterAppRef: {
              apiVersion: 'helm.toolkit.fluxcd.io/v2',
              kind: 'HelmRelease',
              name: 'podinfo',
            },
            ready: true,
            revision,
          },
        ],
      },
    },
    ...(halts === undefined ? {} : { halts }),
  };
}

describe('PipelineCatalog: the status it holds', () => {
  it('takes the object as its head: the status packed, and gone from the object', () => {
    const catalog = new PipelineCatalog(config);
    const given = samplePipeline(statusAt('1.0.0'));
    const id = pipelineIdOf(given);
    const expected = structuredClone(given.status);
    catalog.upsert(given);
    // Nothing parsed of the status stays: the object (the watch's cache's) holds none.
    expect(given.status).toBeUndefined();
    expect(catalog.head(id)).toBe(given);
    expect(catalog.get(id)?.status).toEqual(expected);
    expect(catalog.get(id)?.spec).toBe(given.spec);
  });

  it('shows the latest status after each upsert', () => {
    const catalog = new PipelineCatalog(config);
    const id = pipelineIdOf(samplePipeline());
    catalog.upsert(samplePipeline(statusAt('1.0.0')));
    expect(catalog.get(id)?.status?.environments?.dev?.targets?.[0]?.revision).toBe('1.0.0');
    catalog.upsert(samplePipeline(statusAt('1.1.0')));
    expect(catalog.get(id)?.status?.environments?.dev?.targets?.[0]?.revision).toBe('1.1.0');
    catalog.upsert(samplePipeline());
    expect(catalog.get(id)?.status).toBeUndefined();
    catalog.remove(id);
    expect(catalog.get(id)).toBeUndefined();
  });

  it('hands out heads without status, one object per upsert', () => {
    const catalog = new PipelineCatalog(config);
    const id = pipelineIdOf(samplePipeline());
    catalog.upsert(samplePipeline(statusAt('1.0.0')));
    const head = catalog.head(id);
    expect(head).toBeDefined();
    expect((head as { status?: unknown } | undefined)?.status).toBeUndefined();
    expect(catalog.head(id)).toBe(head);
    expect(catalog.heads()).toEqual([head]);
    catalog.upsert(samplePipeline(statusAt('1.1.0')));
    expect(catalog.head(id)).not.toBe(head);
    expect(catalog.head(id)?.spec).toBe(head?.spec);
  });

  it('answers halts without unpacking, as the latest status has them', () => {
    const catalog = new PipelineCatalog(config);
    const id = pipelineIdOf(samplePipeline());
    catalog.upsert(samplePipeline(statusAt('1.0.0', [halt])));
    expect(catalog.halts(id)).toEqual([halt]);
    expect(catalog.haltLists()).toEqual([[halt]]);
    expect(catalog.get(id)?.status?.halts).toEqual([halt]);
    catalog.upsert(samplePipeline(statusAt('1.0.0')));
    expect(catalog.halts(id)).toBeUndefined();
    expect(catalog.haltLists()).toEqual([undefined]);
  });
});
