import { readdirSync, readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { asPipeline, checkPipeline } from '../../../src/kube/pipeline-check.js';
import { packagePath } from '../../../src/paths.js';

const samples = packagePath('test', 'fixtures', 'weave-gitops', 'samples');
const pipelines = readdirSync(samples)
  .flatMap((file) => parseAllDocuments(readFileSync(`${samples}/${file}`, 'utf8')))
  .map((doc) => doc.toJS() as { kind?: string; metadata?: { namespace?: string } })
  .filter((object) => object.kind === 'Pipeline')
  .map((object) => ({ ...object, metadata: { namespace: 'default', ...object.metadata } }));

const valid = {
  apiVersion: 'pipelines.weave.works/v1alpha1',
  kind: 'Pipeline',
  metadata: { namespace: 'apps', name: 'app' },
  spec: {
    appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'app' },
    environments: [{ name: 'dev', targets: [{ namespace: 'dev' }] }],
  },
};

describe('checkPipeline', () => {
  it("accepts weave's own sample Pipelines unchanged", () => {
    expect(pipelines.length).toBeGreaterThanOrEqual(3);
    for (const object of pipelines) expect(checkPipeline(object)).toMatchObject({ ok: true });
  });

  it.each([
    ['another kind', { ...valid, kind: 'Kustomization' }, 'not a pipelines.weave.works'],
    ['no namespace', { ...valid, metadata: { name: 'app' } }, 'metadata.namespace'],
    ['no spec', { ...valid, spec: undefined }, 'spec is required'],
    ['no appRef', { ...valid, spec: { environments: [] } }, "must have required property 'appRef'"],
    [
      'a target without namespace',
      { ...valid, spec: { ...valid.spec, environments: [{ name: 'dev', targets: [{}] }] } },
      '/spec/environments/0/targets/0',
    ],
    [
      'a non-string environment name',
      { ...valid, spec: { ...valid.spec, environments: [{ name: 7, targets: [] }] } },
      '/spec/environments/0/name',
    ],
  ])('refuses %s, saying where', (_what, object, problem) => {
    const checked = checkPipeline(object);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.problem).toContain(problem);
  });

  it('asPipeline throws on what checkPipeline refuses', () => {
    expect(asPipeline(valid).metadata.name).toBe('app');
    expect(() => asPipeline({ ...valid, kind: 'Other' })).toThrow(TypeError);
  });
});
