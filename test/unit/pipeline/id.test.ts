import { describe, expect, it } from 'vitest';
import {
  parsePipelineId,
  pipelineId,
  pipelineIdOf,
  pipelineRef,
} from '../../../src/pipeline/id.js';

describe('pipeline ids', () => {
  it('joins and splits namespace/name', () => {
    const id = pipelineId({ namespace: 'ns', name: 'p' });
    expect(id).toBe('ns/p');
    expect(pipelineRef(id)).toEqual({ namespace: 'ns', name: 'p' });
    expect(parsePipelineId('ns/p')).toBe(id);
    expect(pipelineIdOf({ metadata: { namespace: 'ns', name: 'p' } })).toBe(id);
  });

  it('parses only exactly namespace/name', () => {
    for (const bad of ['nsp', '/p', 'ns/', 'a/b/c', '', '/']) {
      expect(parsePipelineId(bad)).toBeUndefined();
    }
  });

  it('round-trips every namespace and name without a slash', () => {
    for (const [namespace, name] of [
      ['a', 'b'],
      ['flux-system', 'podinfo.v2'],
      ['x', 'y-z.1'],
    ] as const) {
      const id = pipelineId({ namespace, name });
      expect(parsePipelineId(id)).toBe(id);
      expect(pipelineRef(id)).toEqual({ namespace, name });
    }
  });
});
