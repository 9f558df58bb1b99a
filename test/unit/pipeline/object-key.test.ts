import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { objectKeyId, type ObjectKey } from '../../../src/pipeline/object-key.js';

const helm = { group: 'helm.toolkit.fluxcd.io', kind: 'HelmRelease' };
const kustomize = { group: 'kustomize.toolkit.fluxcd.io', kind: 'Kustomization' };

describe('objectKeyId', () => {
  it('abbreviates the two Flux kinds Pipelines name, and spells out every other', () => {
    const at = { cluster: 'eu', namespace: 'team', name: 'app' };
    expect(objectKeyId({ ...at, ...helm })).toBe('eu|H|team|app');
    expect(objectKeyId({ ...at, ...kustomize })).toBe('eu|K|team|app');
    expect(objectKeyId({ ...at, group: 'helm.toolkit.fluxcd.io', kind: 'HelmChart' })).toBe(
      'eu|helm.toolkit.fluxcd.io|HelmChart|team|app',
    );
    expect(objectKeyId({ ...at, group: 'example.io', kind: 'HelmRelease' })).toBe(
      'eu|example.io|HelmRelease|team|app',
    );
  });

  it('gives distinct keys distinct ids', () => {
    // Names as Kubernetes allows them (no '|'), group and kind among the abbreviated and not.
    const name = fc.stringMatching(/^[a-z0-9]([a-z0-9.-]{0,6}[a-z0-9])?$/);
    const group = fc.constantFrom(
      'helm.toolkit.fluxcd.io',
      'kustomize.toolkit.fluxcd.io',
      'H',
      'K',
      '',
    );
    const kind = fc.constantFrom('HelmRelease', 'Kustomization', 'H', 'K');
    const key = fc.record({ cluster: name, group, kind, namespace: name, name });
    fc.assert(
      fc.property(key, key, (a: ObjectKey, b: ObjectKey) => {
        const same =
          a.cluster === b.cluster &&
          a.group === b.group &&
          a.kind === b.kind &&
          a.namespace === b.namespace &&
          a.name === b.name;
        expect(objectKeyId(a) === objectKeyId(b)).toBe(same);
      }),
      { numRuns: 2000 },
    );
  });
});
