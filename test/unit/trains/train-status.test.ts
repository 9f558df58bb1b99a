/** The status a train pass writes: what was seen together, the next release, Ready. */
import { describe, expect, it } from 'vitest';
import type { MemberStand } from '../../../src/evaluate/train-release.js';
import { combinationDigest } from '../../../src/trains/combination-digest.js';
import { nextTrainStatus, type TrainSnapshot } from '../../../src/trains/train-status.js';
import { TrainBook } from '../../../src/trains/train-book.js';
import type { PromotionTrain } from '../../../src/trains/train-resource.js';

const T0 = Date.parse('2026-12-01T10:00:00Z');
const met: MemberStand = { gatesMet: true, arrived: false, failed: false };

function snapshot(fields: Partial<TrainSnapshot> = {}): TrainSnapshot {
  return {
    generation: 2,
    members: ['api', 'web'],
    missing: [],
    suspended: false,
    environments: [
      {
        name: 'prod',
        together: { api: '2', web: '5' },
        standsFor: () => ({ api: met, web: met }),
        arrivedAll: () => false,
      },
    ],
    ...fields,
  };
}

describe('the next train status', () => {
  it('records the combination seen together and starts its release', () => {
    const status = nextTrainStatus(undefined, snapshot(), T0);
    const digest = combinationDigest({ api: '2', web: '5' });
    expect(status.environments?.[0]?.observed).toEqual([
      { digest, members: { api: '2', web: '5' }, observedAt: '2026-12-01T10:00:00.000Z' },
    ]);
    expect(status.environments?.[0]?.release).toMatchObject({ digest, state: 'Promoting' });
    expect(status.conditions?.[0]).toMatchObject({ type: 'Ready', status: 'True' });
    expect(status.observedGeneration).toBe(2);
  });

  it('writes the same status again on a steady fleet (nothing to write)', () => {
    const first = nextTrainStatus(undefined, snapshot(), T0);
    const steady = snapshot({
      environments: [
        {
          name: 'prod',
          together: { api: '2', web: '5' },
          standsFor: () => ({ api: met, web: met }),
          arrivedAll: () => false,
        },
      ],
    });
    expect(nextTrainStatus(first, steady, T0 + 60_000)).toEqual(first);
  });

  it('records the members rolled back from a Failed release, and keeps them', () => {
    const failed: MemberStand = { gatesMet: true, arrived: false, failed: true };
    const env = (rolledBack: string[]) => ({
      name: 'prod',
      together: { api: '2', web: '5' },
      standsFor: () => ({ api: met, web: failed }),
      arrivedAll: () => false,
      rolledBack: () => rolledBack,
    });
    const promoting = nextTrainStatus(undefined, snapshot(), T0);
    const failing = nextTrainStatus(promoting, snapshot({ environments: [env([])] }), T0 + 1);
    expect(failing.environments?.[0]?.release).toMatchObject({ state: 'Failed' });
    expect(failing.environments?.[0]?.release?.rolledBack).toBeUndefined();
    const rolled = nextTrainStatus(failing, snapshot({ environments: [env(['api'])] }), T0 + 2);
    expect(rolled.environments?.[0]?.release).toMatchObject({
      state: 'Failed',
      rolledBack: ['api'],
    });
    // Once recorded, a member stays named though its record moves on.
    const later = nextTrainStatus(rolled, snapshot({ environments: [env([])] }), T0 + 3);
    expect(later.environments?.[0]?.release?.rolledBack).toEqual(['api']);
  });

  it('says which members are missing, Ready=False', () => {
    const status = nextTrainStatus(undefined, snapshot({ missing: ['gone'] }), T0);
    expect(status.conditions?.[0]).toMatchObject({
      status: 'False',
      reason: 'MembersMissing',
      message: 'members not found: gone',
    });
  });
});

describe('the train book', () => {
  const train = (name: string, spec: PromotionTrain['spec']): PromotionTrain => ({
    apiVersion: 'pipelines.promotion-gateway.dev/v1alpha1',
    kind: 'PromotionTrain',
    metadata: { name, namespace: 'shop' },
    spec,
  });
  const candidates = () => [
    { name: 'api', environments: ['dev', 'prod'] },
    { name: 'web', labels: { team: 'web' }, environments: ['dev', 'prod'] },
  ];

  it('finds the train a Pipeline belongs to, by name or labels, in its namespace only', () => {
    const book = new TrainBook();
    expect(book.membershipOf('shop', 'api', candidates)).toBeUndefined();
    book.update([
      train('a', { members: [{ name: 'api' }] }),
      train('b', { selector: { matchLabels: { team: 'web' } } }),
    ]);
    expect(book.membershipOf('shop', 'api', candidates)?.train.metadata.name).toBe('a');
    expect(book.membershipOf('shop', 'web', candidates)).toMatchObject({
      train: { metadata: { name: 'b' } },
      environments: ['prod'],
    });
    expect(book.membershipOf('other', 'api', candidates)).toBeUndefined();
  });
});
