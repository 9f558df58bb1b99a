/**
 * The soak's input to the evaluator: nothing at all for a Pipeline without a soak (so it
 * evaluates exactly as before), else each soaked-on environment's healthy-since from the stored
 * status checked against this replica's reads, which VerifiedTargets keeps by catalog target.
 */
import { describe, expect, it } from 'vitest';
import type { TargetStatus } from '../../../src/evaluate/decisions.js';
import type { Pipeline, PipelineStatus } from '../../../src/pipeline/pipeline-resource.js';
import { soakInputOf, type ReadHistories } from '../../../src/evaluation/soak-input.js';
import { samplePipeline, T0 } from '../../support/pipeline-fixtures.js';

const healthy = (revision: string): TargetStatus => ({
  location: { cluster: 'c', namespace: 'podinfo' },
  health: 'Healthy',
  revision,
  reason: 'Ready',
  message: '',
});
const targets = {
  dev: [healthy('2'), healthy('2')],
  staging: [healthy('1')],
  prod: [healthy('1')],
};
const iso = (ms: number) => new Date(ms).toISOString();

function soaked(status?: PipelineStatus): Pipeline {
  const p = samplePipeline(status);
  const prod = p.spec.environments[2];
  if (prod !== undefined)
    prod.promotion = { strategy: { notification: {} }, soak: { duration: '1h' } };
  return p;
}

/** Both dev targets read at T0 - 1 min, healthy at 2 since T0 - 10 min. */
const history: ReadHistories = {
  historyOf: () => ({
    readAt: { dev: [T0 - 60_000, T0 - 60_000] },
    streaks: {
      dev: [
        { healthyRevision: '2', healthySince: T0 - 600_000 },
        { healthyRevision: '2', healthySince: T0 - 600_000 },
      ],
    },
  }),
};

describe('soakInputOf', () => {
  it('gives nothing for a Pipeline without a soak', () => {
    expect(soakInputOf(samplePipeline(), targets, history, T0)).toEqual({});
  });

  it('gives the environment before each soaked one its healthy-since, and no other', () => {
    const stored = {
      environments: { dev: { healthySince: { revision: '2', time: iso(T0 - 900_000) } } },
    };
    expect(soakInputOf(soaked(), targets, history, T0)).toEqual({
      soak: { staging: { revision: '1', time: iso(T0) } },
    });
    expect(soakInputOf(soaked(stored), targets, history, T0).soak).not.toHaveProperty('dev');
  });

  it('keeps the stored time of a soak on dev, and counts from the reads when none is stored', () => {
    const p = samplePipeline();
    const staging = p.spec.environments[1];
    if (staging !== undefined)
      staging.promotion = { strategy: { notification: {} }, soak: { duration: '5m' } };
    expect(soakInputOf(p, targets, history, T0)).toEqual({
      soak: { dev: { revision: '2', time: iso(T0 - 60_000) } },
    });
    const since = { revision: '2', time: iso(T0 - 900_000) };
    const record = {
      clusterAppRef: {
        apiVersion: 'helm.toolkit.fluxcd.io/v2',
        kind: 'HelmRelease',
        name: 'podinfo',
      },
      ready: true,
      revision: '2',
      observedTime: since.time,
    };
    const dev = { healthySince: since, targets: [record, record] };
    const stored = { ...p, status: { environments: { dev } } };
    expect(soakInputOf(stored, targets, history, T0)).toEqual({ soak: { dev: since } });
    // A status that does not show the run yet (no records): from this replica's latest reads.
    const bare = { ...p, status: { environments: { dev: { healthySince: since } } } };
    expect(soakInputOf(bare, targets, history, T0).soak?.dev?.time).toBe(iso(T0 - 60_000));
    // Without this replica's reads, only the stored value or `now` can be known.
    expect(soakInputOf(p, targets, undefined, T0)).toEqual({
      soak: { dev: { revision: '2', time: iso(T0) } },
    });
  });
});
