/** PromotionTrains as read: usable ones pass, each problem is named in one line. */
import { describe, expect, it } from 'vitest';
import { checkTrains } from '../../../src/trains/train-source.js';

function train(spec: unknown, name = 'release'): unknown {
  return {
    apiVersion: 'pipelines.promotion-gateway.dev/v1alpha1',
    kind: 'PromotionTrain',
    metadata: { name, namespace: 'shop' },
    spec,
  };
}

describe('checking trains', () => {
  it('accepts members with an order, and a selector', () => {
    const listing = checkTrains([
      train({ members: [{ name: 'api' }, { name: 'web', dependsOn: ['api'] }] }, 'b'),
      train({ selector: { matchLabels: { train: 'shop' } }, environments: ['prod'] }, 'a'),
    ]);
    expect(listing.invalid).toEqual([]);
    expect(listing.trains.map((t) => t.metadata.name)).toEqual(['a', 'b']);
  });

  it.each([
    [{}, 'spec: give either members or selector, not both'],
    [
      { members: [{ name: 'api' }], selector: { matchLabels: { a: 'b' } } },
      'spec: give either members or selector, not both',
    ],
    [{ members: [] }, 'spec.members: must NOT have fewer than 1 items'],
    [
      { members: [{ name: 'web', dependsOn: ['api'] }] },
      'spec.members[0].dependsOn: api is not a member of the train',
    ],
    [
      { members: [{ name: 'web', dependsOn: ['web'] }] },
      'spec.members[0].dependsOn: a member cannot depend on itself',
    ],
    [
      {
        members: [
          { name: 'a', dependsOn: ['c'] },
          { name: 'b', dependsOn: ['a'] },
          { name: 'c', dependsOn: ['b'] },
        ],
      },
      'spec.members: dependsOn has a cycle (a -> c -> b -> a)',
    ],
    [{ members: [{ name: 'Web' }] }, 'spec.members[0].name: must match pattern'],
  ])('refuses %j', (spec, problem) => {
    const listing = checkTrains([train(spec)]);
    expect(listing.trains).toEqual([]);
    expect(listing.invalid[0]?.problem).toContain(problem);
  });

  it('skips objects that are not stored trains', () => {
    expect(
      checkTrains([{ kind: 'Pipeline' }, null, train({ members: [{ name: 'a' }] }, '')]),
    ).toEqual({ trains: [], invalid: [] });
  });
});
