/**
 * The catalog tells its listeners (the web view's live updates) of every Pipeline upserted,
 * whether its references or only its status changed, and of every removal, after it holds the
 * change; an unsubscribed listener hears nothing more.
 */
import { describe, expect, it } from 'vitest';
import { PipelineCatalog } from '../../../src/catalog/catalog.js';
import type { PipelineId } from '../../../src/pipeline/id.js';
import { samplePipeline } from '../../support/pipeline-fixtures.js';

describe('PipelineCatalog.onChange', () => {
  it('tells listeners of upserts (spec or status) and removals, after the change is held', () => {
    const catalog = new PipelineCatalog({
      management: { name: 'management' },
      clusters: [],
    });
    const heard: [PipelineId, string | undefined][] = [];
    const stop = catalog.onChange((id) => {
      heard.push([id, catalog.get(id)?.status?.observedGeneration?.toString()]);
    });
    const first = samplePipeline();
    const id = `${first.metadata.namespace}/${first.metadata.name}` as PipelineId;
    expect(catalog.upsert(first)).toBe(true);
    expect(catalog.upsert(samplePipeline({ observedGeneration: 3 }))).toBe(false);
    catalog.remove(id);
    expect(heard).toEqual([
      [id, undefined],
      [id, '3'],
      [id, undefined],
    ]);
    stop();
    catalog.upsert(samplePipeline());
    expect(heard).toHaveLength(3);
  });
});
