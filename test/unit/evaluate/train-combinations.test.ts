/** What a train counts as verified together, and the bounded list of what it saw. */
import { describe, expect, it } from 'vitest';
import { recordObservation, verifiedTogether } from '../../../src/evaluate/train-combinations.js';
import { combinationDigest } from '../../../src/trains/combination-digest.js';
import { healthy, unhealthy, unknown } from '../../support/evaluate-builders.js';

describe('verified together', () => {
  it('is every member healthy at one revision on every target', () => {
    expect(verifiedTogether({ web: [healthy('5'), healthy('5')], api: [healthy('2')] })).toEqual({
      api: '2',
      web: '5',
    });
  });

  it.each([
    ['a member not healthy', { web: [healthy('5')], api: [unhealthy('2')] }],
    ['a member unknown', { web: [healthy('5')], api: [unknown()] }],
    [
      'a member split over two revisions',
      { web: [healthy('5'), healthy('6')], api: [healthy('2')] },
    ],
    ['a member without targets', { web: [healthy('5')], api: [] }],
    ['no members', {}],
  ])('is nothing with %s', (_, upstream) => {
    expect(verifiedTogether(upstream)).toBeUndefined();
  });
});

describe('the observed list', () => {
  const c = (n: number) => ({ digest: `d${n}`, members: { web: String(n) } });

  it('puts what was seen first, once, with its newest time, and keeps at most max', () => {
    let list = recordObservation([], c(1), 10, 2);
    list = recordObservation(list, c(2), 20, 2);
    list = recordObservation(list, c(2), 25, 2);
    expect(list.map((o) => [o.digest, o.observedAt])).toEqual([
      ['d2', 20],
      ['d1', 10],
    ]);
    list = recordObservation(list, c(1), 30, 2);
    expect(list.map((o) => [o.digest, o.observedAt])).toEqual([
      ['d1', 30],
      ['d2', 20],
    ]);
    list = recordObservation(list, c(3), 40, 2);
    expect(list.map((o) => o.digest)).toEqual(['d3', 'd1']);
  });
});

describe('the combination digest', () => {
  it('names the map, not the order it was written in', () => {
    expect(combinationDigest({ a: '1', b: '2' })).toBe(combinationDigest({ b: '2', a: '1' }));
    expect(combinationDigest({ a: '1', b: '2' })).not.toBe(combinationDigest({ a: '1', b: '3' }));
    expect(combinationDigest({ a: '1' })).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});
