import { describe, expect, it } from 'vitest';
import { ShapeTable } from '../../../src/catalog/share-shapes.js';

/** A Pipeline-like object: spec targets with clusterRefs, status records with clusterAppRefs. */
function pipeline(name: string, observedTime: string) {
  const clusterRef = (cluster: string) => ({
    kind: 'GitopsCluster',
    name: cluster,
    namespace: 'flux-system',
  });
  const appRef = { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'podinfo' };
  return {
    metadata: { name, namespace: 'team', labels: { app: 'podinfo' } },
    spec: {
      appRef,
      environments: [
        { name: 'dev', targets: [{ namespace: 'apps', clusterRef: clusterRef('c1') }] },
        { name: 'prod', targets: [{ namespace: 'apps', clusterRef: clusterRef('c2') }] },
      ],
    },
    status: {
      environments: {
        dev: {
          targets: [
            {
              clusterAppRef: { ...appRef, clusterRef: clusterRef('c1') },
              ready: true,
              revision: '6.6.0',
              observedTime,
            },
          ],
        },
      },
    },
  };
}

describe('ShapeTable', () => {
  it('changes no value, and makes equal small objects one frozen instance across objects', () => {
    const table = new ShapeTable();
    const a = pipeline('a', '2026-11-26T10:00:00.000Z');
    const b = pipeline('b', '2026-11-26T10:00:01.000Z');
    const before = structuredClone([a, b]);
    table.share(a);
    table.share(b);
    expect([a, b]).toStrictEqual(before);
    const devRef = a.spec.environments[0]?.targets[0]?.clusterRef;
    expect(b.spec.environments[0]?.targets[0]?.clusterRef).toBe(devRef);
    expect(Object.isFrozen(devRef)).toBe(true);
    // The status record's clusterRef is the spec's; the records themselves stay their own.
    const record = a.status.environments.dev.targets[0];
    expect(record?.clusterAppRef.clusterRef).toBe(devRef);
    expect(b.spec.appRef).toBe(a.spec.appRef);
    expect(b.metadata.labels).not.toBe(a.metadata.labels);
  });

  it('leaves every other object alone: records, clusterAppRefs, arrays, the root', () => {
    const table = new ShapeTable();
    const a = pipeline('a', '2026-11-26T10:00:00.000Z');
    const b = pipeline('b', '2026-11-26T10:00:01.000Z');
    table.share(a);
    table.share(b);
    // Records differ by observedTime, so each stays its own (open) object.
    expect(b.status.environments.dev.targets[0]).not.toBe(a.status.environments.dev.targets[0]);
    expect(Object.isFrozen(a.status.environments.dev.targets[0])).toBe(false);
    expect(Object.isFrozen(a.status.environments.dev.targets[0]?.clusterAppRef)).toBe(false);
    expect(Object.isFrozen(a.spec.environments)).toBe(false);
    expect(Object.isFrozen(a)).toBe(false);
    // A tiny root is never replaced or frozen either.
    const root = { clusterRef: { kind: 'GitopsCluster', name: 'c9', extra: { deep: true } } };
    expect(table.share(root)).toBe(root);
    expect(Object.isFrozen(root)).toBe(false);
    expect(Object.isFrozen(root.clusterRef)).toBe(false);
  });

  it('makes a write into a shared object throw instead of changing every holder', () => {
    const table = new ShapeTable();
    const a = pipeline('a', 't1');
    table.share(a);
    const ref = a.spec.environments[0]?.targets[0]?.clusterRef;
    expect(() => {
      if (ref !== undefined) ref.name = 'other';
    }).toThrow(TypeError);
  });

  it('stays within its bound, and skips objects too large to be worth a key', () => {
    const table = new ShapeTable(3);
    for (let i = 0; i < 10; i++) table.share({ clusterRef: { kind: 'K', name: `n${String(i)}` } });
    expect(table.size).toBeLessThanOrEqual(3);
    const large = { appRef: { name: 'x'.repeat(300) } };
    table.share(large);
    expect(Object.isFrozen(large.appRef)).toBe(false);
  });

  it('makes equal target lists one frozen list of frozen targets across Pipelines, changing no value', () => {
    const table = new ShapeTable();
    const a = pipeline('a', '2026-11-26T10:00:00.000Z');
    const b = pipeline('b', '2026-11-26T10:00:01.000Z');
    const other = pipeline('c', '2026-11-26T10:00:02.000Z');
    const otherProd = other.spec.environments[1]?.targets[0];
    if (otherProd !== undefined) otherProd.namespace = 'live';
    const before = structuredClone([a, b, other]);
    for (const p of [a, b, other]) {
      table.share(p);
      table.shareSpecParts(p.spec);
    }
    expect([a, b, other]).toStrictEqual(before);
    const [aDev, aProd] = a.spec.environments;
    const [bDev, bProd] = b.spec.environments;
    expect(bDev?.targets).toBe(aDev?.targets);
    expect(bProd?.targets).toBe(aProd?.targets);
    expect(other.spec.environments[0]?.targets).toBe(aDev?.targets);
    expect(other.spec.environments[1]?.targets).not.toBe(aProd?.targets);
    expect(Object.isFrozen(aDev?.targets)).toBe(true);
    expect(Object.isFrozen(aDev?.targets[0])).toBe(true);
    // Equal environments are one list; differing ones stay each Pipeline's own.
    expect(b.spec.environments).toBe(a.spec.environments);
    expect(Object.isFrozen(a.spec.environments[0])).toBe(true);
    expect(other.spec.environments).not.toBe(a.spec.environments);
  });

  it('shares the Pipeline-wide promotion, deep-frozen, and leaves parts past the bound alone', () => {
    const table = new ShapeTable();
    const spec = (endpoint: string) => ({
      environments: [{ name: 'dev', targets: [{ namespace: 'apps' }] }],
      promotion: { strategy: { webhook: { endpoint } } },
    });
    const [a, b, huge] = [spec('deploy'), spec('deploy'), spec('x'.repeat(5000))];
    for (const s of [a, b, huge]) table.shareSpecParts(s);
    expect(b.promotion).toBe(a.promotion);
    expect(Object.isFrozen(a.promotion.strategy.webhook)).toBe(true);
    expect(huge.promotion).not.toBe(a.promotion);
    expect(Object.isFrozen(huge.promotion)).toBe(false);
    // Its environments are alike: shared all the same.
    expect(huge.environments).toBe(a.environments);
  });
});
