import { describe, expect, it } from 'vitest';
import { PipelineCatalog } from '../../../src/catalog/catalog.js';
import { pipelineIdOf } from '../../../src/pipeline/id.js';
import type {
  HaltRecord,
  Pipeline,
  PipelineStatus,
} from '../../../src/pipeline/pipeline-resource.js';
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

function withGeneration(pipeline: Pipeline, generation: number): Pipeline {
  pipeline.metadata.generation = generation;
  return pipeline;
}

describe('PipelineCatalog: the status it holds', () => {
  it('holds the state observed of the Pipeline, leaving the object given as it was', () => {
    const catalog = new PipelineCatalog(config);
    const given = samplePipeline(statusAt('1.0.0'));
    const id = pipelineIdOf(given);
    const expected = structuredClone(given);
    catalog.upsert(given);
    expect(given).toEqual(expected);
    const state = catalog.get(id);
    expect(state).toEqual(expected);
    expect(state?.spec).not.toBe(given.spec);
    expect(catalog.head(id)).toBe(state);
    expect(Object.isFrozen(state?.status?.environments?.dev)).toBe(true);
    expect(catalog.environments(id)).toEqual(expected.spec.environments.map((e) => e.name));
  });

  it('shares one spec between the states of one generation', () => {
    const catalog = new PipelineCatalog(config);
    const id = pipelineIdOf(samplePipeline());
    catalog.upsert(withGeneration(samplePipeline(statusAt('1.0.0')), 1));
    const spec = catalog.head(id)?.spec;
    expect(catalog.head(id)?.spec).toBe(spec);
    expect(catalog.get(id)?.spec).toBe(spec);
    catalog.upsert(withGeneration(samplePipeline(statusAt('1.1.0')), 1));
    expect(catalog.head(id)?.spec).toBe(spec);
    const changed = withGeneration(samplePipeline(statusAt('1.1.0')), 2);
    changed.spec.environments.pop();
    catalog.upsert(changed);
    expect(catalog.head(id)?.spec).not.toBe(spec);
    expect(catalog.environments(id)).toHaveLength((spec?.environments.length ?? 0) - 1);
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

  it('hands out one state per upsert: its identity is the version', () => {
    const catalog = new PipelineCatalog(config);
    const id = pipelineIdOf(samplePipeline());
    catalog.upsert(samplePipeline(statusAt('1.0.0')));
    const head = catalog.head(id);
    expect(head).toBeDefined();
    expect(catalog.head(id)).toBe(head);
    expect(catalog.heads()).toEqual([head]);
    catalog.upsert(samplePipeline(statusAt('1.1.0')));
    expect(catalog.head(id)).not.toBe(head);
    expect(catalog.head(id)?.spec).toBe(head?.spec);
  });

  it('answers halts as the latest status has them', () => {
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
