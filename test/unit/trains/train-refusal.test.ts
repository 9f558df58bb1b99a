/** A refused train's status: Ready=False with its reason, the rest of the status kept. */
import { describe, expect, it } from 'vitest';
import { readyReason, refusedTrainStatus } from '../../../src/trains/train-refusal.js';
import type { TrainStatus } from '../../../src/trains/train-resource.js';

const T0 = Date.parse('2026-12-07T10:00:00Z');

describe('a refused train status', () => {
  const stored: TrainStatus = {
    conditions: [
      {
        type: 'Ready',
        status: 'True',
        reason: 'MembersFound',
        message: '1 members: api',
        lastTransitionTime: '2026-12-01T00:00:00.000Z',
      },
    ],
    members: ['api'],
    environments: [{ name: 'prod' }],
  };

  it('says why, keeps what was recorded, and moves the transition time once', () => {
    const refusal = { reason: 'DependsOnCycle', message: 'spec.members: dependsOn has a cycle' };
    const first = refusedTrainStatus(stored, { ...refusal, generation: 3 }, T0);
    expect(first.conditions?.[0]).toEqual({
      type: 'Ready',
      status: 'False',
      ...refusal,
      lastTransitionTime: new Date(T0).toISOString(),
      observedGeneration: 3,
    });
    expect(first.environments).toEqual(stored.environments);
    expect(first.observedGeneration).toBe(3);
    expect(readyReason(first)).toBe('DependsOnCycle');
    const again = refusedTrainStatus(
      first,
      { reason: 'MemberInAnotherTrain', message: 'x', members: ['web'] },
      T0 + 60_000,
    );
    expect(again.conditions?.[0]?.lastTransitionTime).toBe(new Date(T0).toISOString());
    expect(again.members).toEqual(['web']);
  });
});
