/** A train's release into one environment, step by step: Waiting, Promoting, Succeeded, Failed. */
import { describe, expect, it } from 'vitest';
import type { ObservedAt } from '../../../src/evaluate/train-combinations.js';
import {
  nextRelease,
  type MemberStand,
  type Release,
  type ReleaseInput,
} from '../../../src/evaluate/train-release.js';

const A: ObservedAt = { digest: 'sha256:a', members: { api: '2', web: '5' }, observedAt: 100 };
const B: ObservedAt = { digest: 'sha256:b', members: { api: '3', web: '5' }, observedAt: 200 };

const stand = (fields: Partial<MemberStand> = {}): MemberStand => ({
  gatesMet: false,
  arrived: false,
  failed: false,
  ...fields,
});

function input(fields: Partial<ReleaseInput>): ReleaseInput {
  return {
    observed: [A],
    standsFor: () => ({ api: stand(), web: stand() }),
    arrivedAll: () => false,
    suspended: false,
    now: 1000,
    ...fields,
  };
}

function release(state: Release['state'], seen: ObservedAt = A, startedAt = 150): Release {
  return {
    digest: seen.digest,
    members: seen.members,
    state,
    startedAt,
    waitingFor: [],
    reason: state,
    message: '',
  };
}

describe('the next release', () => {
  it('is nothing while nothing was seen verified together', () => {
    expect(nextRelease(input({ observed: [] }))).toBeUndefined();
  });

  it('starts Waiting on the newest combination, naming the members whose gates hold it', () => {
    const next = nextRelease(
      input({ standsFor: () => ({ api: stand({ gatesMet: true }), web: stand() }) }),
    );
    expect(next).toMatchObject({ digest: 'sha256:a', state: 'Waiting', waitingFor: ['web'] });
    expect(next?.startedAt).toBe(1000);
  });

  it('starts Promoting once every member gates are met', () => {
    const met = { api: stand({ gatesMet: true }), web: stand({ gatesMet: true }) };
    expect(nextRelease(input({ current: release('Waiting'), standsFor: () => met }))?.state).toBe(
      'Promoting',
    );
  });

  it('stays Waiting while suspended, gates met or not', () => {
    const met = { api: stand({ gatesMet: true }), web: stand({ gatesMet: true }) };
    const next = nextRelease(
      input({ current: release('Waiting'), standsFor: () => met, suspended: true }),
    );
    expect(next).toMatchObject({ state: 'Waiting', reason: 'Suspended' });
  });

  it('replaces a Waiting release with a newer combination', () => {
    const next = nextRelease(input({ observed: [B, A], current: release('Waiting') }));
    expect(next?.digest).toBe('sha256:b');
  });

  it('keeps a Promoting release whatever is seen since, until every member arrived', () => {
    const one = { api: stand({ arrived: true }), web: stand() };
    const next = nextRelease(
      input({ observed: [B, A], current: release('Promoting'), standsFor: () => one }),
    );
    expect(next).toMatchObject({ digest: 'sha256:a', state: 'Promoting', waitingFor: ['web'] });
    const all = { api: stand({ arrived: true }), web: stand({ arrived: true }) };
    const done = nextRelease(input({ current: release('Promoting'), standsFor: () => all }));
    expect(done).toMatchObject({ state: 'Succeeded', startedAt: 150, finishedAt: 1000 });
    const later = nextRelease(input({ current: done, standsFor: () => all, now: 2000 }));
    expect(later?.finishedAt).toBe(1000);
  });

  it('fails when a member failed, naming it', () => {
    const failed = { api: stand({ arrived: true }), web: stand({ failed: true }) };
    const next = nextRelease(input({ current: release('Promoting'), standsFor: () => failed }));
    expect(next).toMatchObject({ state: 'Failed', waitingFor: ['web'], reason: 'MemberFailed' });
    expect(next?.finishedAt).toBe(1000);
  });

  it('after Failed, holds until another combination is seen', () => {
    expect(nextRelease(input({ current: release('Failed') }))?.state).toBe('Failed');
    const next = nextRelease(input({ observed: [B, A], current: release('Failed') }));
    expect(next).toMatchObject({ digest: 'sha256:b', state: 'Waiting' });
  });

  it('after Succeeded, starts a new release only for a combination seen since', () => {
    const older = { ...B, observedAt: 100 };
    expect(nextRelease(input({ observed: [older], current: release('Succeeded') }))?.digest).toBe(
      'sha256:a',
    );
    expect(nextRelease(input({ observed: [B], current: release('Succeeded') }))?.digest).toBe(
      'sha256:b',
    );
  });

  it('records a combination every member already runs as Succeeded, promoting nothing', () => {
    const next = nextRelease(input({ arrivedAll: () => true }));
    expect(next).toMatchObject({ digest: 'sha256:a', state: 'Succeeded', reason: 'Arrived' });
    expect(next?.finishedAt).toBeUndefined();
  });
});
