import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resourceVersionOf } from '../../../src/kube/resource-version.js';

describe('resourceVersionOf', () => {
  it('finds metadata.resourceVersion wherever metadata stands among the members', () => {
    const pipeline = {
      apiVersion: 'pipelines.weave.works/v1alpha1',
      kind: 'Pipeline',
      status: { environments: { dev: { targets: [{ ready: true, revision: '1.0.0' }] } } },
      metadata: { name: 'app', namespace: 'flux-system', resourceVersion: '48213', generation: 3 },
    };
    expect(resourceVersionOf(JSON.stringify(pipeline))).toBe('48213');
    expect(resourceVersionOf(JSON.stringify(pipeline, null, 2))).toBe('48213');
  });

  it('ignores a resourceVersion anywhere but directly in the top-level metadata', () => {
    const text = JSON.stringify({
      spec: { resourceVersion: 'spec', metadata: { resourceVersion: 'nested' } },
      metadata: {
        annotations: { resourceVersion: 'annotation', '}{"': '"resourceVersion":"x"' },
        managedFields: [{ fieldsV1: { 'f:metadata': { 'f:resourceVersion': {} } } }],
        resourceVersion: '7',
      },
      status: { message: '"metadata":{"resourceVersion":"forged"}' },
    });
    expect(resourceVersionOf(text)).toBe('7');
  });

  it('reads escaped keys and values as JSON does', () => {
    expect(resourceVersionOf('{"meta\\u0064ata":{"resource\\u0056ersion":"a\\"b"}}')).toBe('a"b');
  });

  it('says nothing for text without one, or that is not a JSON object', () => {
    for (const text of [
      '',
      'null',
      '[]',
      '"metadata"',
      '{}',
      '{"metadata":{}}',
      '{"metadata":{"resourceVersion":12}}',
      '{"metadata":"resourceVersion"}',
      '{"metadata":{"resourceVersion":"1"',
      '{"metadata" {"resourceVersion":"1"}}',
      '{"a":[1,2}',
    ]) {
      expect(resourceVersionOf(text), text).toBeUndefined();
    }
  });

  it('agrees with JSON.parse on any object (2,000 runs)', () => {
    const value = fc.jsonValue({ maxDepth: 3 });
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), value),
        fc.dictionary(fc.string(), value),
        fc.option(fc.string(), { nil: undefined }),
        fc.boolean(),
        (rest, metadata, resourceVersion, metadataFirst) => {
          const meta = resourceVersion === undefined ? metadata : { ...metadata, resourceVersion };
          const object = metadataFirst ? { metadata: meta, ...rest } : { ...rest, metadata: meta };
          const text = JSON.stringify(object);
          const parsed = JSON.parse(text) as { metadata?: { resourceVersion?: unknown } };
          const expected = parsed.metadata?.resourceVersion;
          expect(resourceVersionOf(text)).toBe(typeof expected === 'string' ? expected : undefined);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
