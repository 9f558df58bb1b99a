import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { packStatus, unpackStatus } from '../../../src/catalog/packed-status.js';
import type { PipelineStatus } from '../../../src/pipeline/pipeline-resource.js';

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
    const packed = packStatus(status);
    const first = unpackStatus(packed);
    expect(first).toEqual(status);
    expect(first).not.toBe(status);
    first.conditions?.splice(0);
    expect(unpackStatus(packed)).toEqual(status);
  });

  it('keep any JSON value, non-ASCII text included', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string({ unit: 'grapheme' }), (value, text) => {
        const status = { conditions: [], extra: value, note: text } as unknown as PipelineStatus;
        expect(unpackStatus(packStatus(status))).toEqual(JSON.parse(JSON.stringify(status)));
      }),
    );
  });

  it('are a one-byte string of about a fifth of the status JSON', () => {
    const status = statusOf(6, 'checkout-service');
    const packed = packStatus(status);
    // Every unit fits in a byte (latin1): V8 keeps such a string at one byte per character.
    expect(Buffer.from(packed, 'latin1').toString('latin1')).toBe(packed);
    expect(packed.length).toBeLessThan(JSON.stringify(status).length / 5);
  });
});
