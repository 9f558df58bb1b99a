import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pack, RecentUnpacked, unpack } from '../../../src/catalog/packed.js';
import type { PipelineSpec, PipelineStatus } from '../../../src/pipeline/pipeline-resource.js';

/** A status as the gateway writes it for one environment of `n` HelmRelease targets. */
function statusOf(n: number, app: string): PipelineStatus {
  const targets = Array.from({ length: n }, (_, i) => ({
    clusterAppRef: {
      apiVersion: 'helm.toolkit.fluxcd.io/v2',
      kind: 'HelmRelease',
      name: app,
      clusterRef: {
        kind: 'GitopsCluster' as const,
        name: `cluster-${String(i)}`,
        namespace: 'flux-system',
      },
    },
    ready: true,
    revision: '6.4.1',
    observedTime: `2026-11-26T10:0${String(i)}:00.123Z`,
  }));
  return {
    observedGeneration: 3,
    conditions: [
      {
        type: 'Ready',
        status: 'True',
        observedGeneration: 3,
        lastTransitionTime: '2026-11-26T10:00:00Z',
        reason: 'AllTargetsReady',
        message: `All ${String(n)} targets are ready`,
      },
    ],
    environments: {
      dev: { targets, verified: [{ revision: '6.4.1', time: '2026-11-26T10:00:00.001Z' }] },
    },
  };
}

describe('packed statuses', () => {
  it('unpack to a status equal to the one packed, as a new object each time', () => {
    const status = statusOf(6, 'podinfo');
    const packed = pack(status);
    const first = unpack(packed);
    expect(first).toEqual(status);
    expect(first).not.toBe(status);
    first.conditions?.splice(0);
    expect(unpack(packed)).toEqual(status);
  });

  it('keep any JSON value, non-ASCII text included', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string({ unit: 'grapheme' }), (value, text) => {
        const status = { conditions: [], extra: value, note: text } as unknown as PipelineStatus;
        expect(unpack(pack(status))).toEqual(JSON.parse(JSON.stringify(status)));
      }),
    );
  });

  it('are a one-byte string of about a fifth of the status JSON', () => {
    const status = statusOf(6, 'checkout-service');
    const packed = pack(status);
    // Every unit fits in a byte (latin1): V8 keeps such a string at one byte per character.
    expect(Buffer.from(packed, 'latin1').toString('latin1')).toBe(packed);
    expect(packed.length).toBeLessThan(JSON.stringify(status).length / 5);
  });
});

/** A spec of three environments of two targets, each in a namespace of its app's own. */
function specOf(app: string): PipelineSpec {
  return {
    appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: app },
    promotion: { strategy: { notification: {} } },
    environments: ['dev', 'staging', 'prod'].map((env, e) => ({
      name: env,
      targets: [0, 1].map((t) => ({
        namespace: `${app}-${env}`,
        clusterRef: {
          kind: 'GitopsCluster',
          name: `c${String(e * 2 + t)}`,
          namespace: 'flux-system',
        },
      })),
    })),
  };
}

describe('packed specs', () => {
  it('unpack to an equal spec, at about a tenth of its JSON', () => {
    const spec = specOf('checkout-service');
    const packed = pack(spec);
    expect(unpack(packed)).toEqual(spec);
    expect(packed.length).toBeLessThan(JSON.stringify(spec).length / 8);
  });
});

describe('RecentUnpacked', () => {
  it('gives the same value for the same packed string while it is recent', () => {
    const recent = new RecentUnpacked<PipelineSpec>(2);
    const [a, b, c] = ['a', 'b', 'c'].map((app) => pack(specOf(app)));
    if (a === undefined || b === undefined || c === undefined) throw new Error('three packed');
    const first = recent.unpack(a);
    expect(recent.unpack(a)).toBe(first);
    // An equal string packed apart is the same key.
    expect(recent.unpack(pack(specOf('a')))).toBe(first);
    recent.unpack(b);
    recent.unpack(a); // a is now the most recent, b the oldest
    recent.unpack(c); // b goes
    expect(recent.unpack(a)).toBe(first);
    const againB = recent.unpack(b);
    expect(againB).toEqual(specOf('b'));
    // c was the oldest when b came back.
    expect(recent.unpack(a)).toBe(first);
  });
});
