import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compareKubeVersions,
  parseApiVersion,
  sortApiVersions,
} from '../../../src/pipeline/api-version.js';

describe('apiVersion helpers', () => {
  it('splits group and version', () => {
    expect(parseApiVersion('helm.toolkit.fluxcd.io/v2beta1')).toEqual({
      group: 'helm.toolkit.fluxcd.io',
      version: 'v2beta1',
    });
    expect(parseApiVersion('v1')).toEqual({ group: '', version: 'v1' });
  });

  it('orders versions as Kubernetes does: GA, then beta, then alpha, then others', () => {
    const shuffled = ['v11alpha2', 'foo1', 'v2', 'v10beta3', 'v1', 'v3beta1', 'v10', 'v11beta2'];
    expect([...shuffled].sort(compareKubeVersions)).toEqual([
      'v10',
      'v2',
      'v1',
      'v11beta2',
      'v10beta3',
      'v3beta1',
      'v11alpha2',
      'foo1',
    ]);
  });

  it('prefers helm v2 over v2beta2 over v2beta1', () => {
    expect(
      sortApiVersions([
        'helm.toolkit.fluxcd.io/v2beta1',
        'helm.toolkit.fluxcd.io/v2',
        'helm.toolkit.fluxcd.io/v2beta2',
      ]),
    ).toEqual([
      'helm.toolkit.fluxcd.io/v2',
      'helm.toolkit.fluxcd.io/v2beta2',
      'helm.toolkit.fluxcd.io/v2beta1',
    ]);
  });

  it('sorts to the same order whatever the input order', () => {
    const version = fc.oneof(
      fc.constantFrom('v1', 'v2', 'v2beta1', 'v2beta2', 'v1alpha1', 'x'),
      fc.string({ maxLength: 4 }),
    );
    fc.assert(
      fc.property(fc.uniqueArray(version, { maxLength: 8 }), (versions) => {
        const forward = sortApiVersions(versions.map((v) => `g/${v}`));
        const backward = sortApiVersions(versions.map((v) => `g/${v}`).reverse());
        expect(backward).toEqual(forward);
      }),
    );
  });
});
