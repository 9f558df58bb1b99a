/**
 * Which trains are in force: a member held by two trains stays with the one that comes first
 * (older, then by name, whatever the listing order), other namespaces' members only where the
 * configuration allows, and a train whose members share no gated environment is refused.
 */
import { describe, expect, it } from 'vitest';
import { TrainBook } from '../../../src/trains/train-book.js';
import type { MemberCandidate } from '../../../src/trains/train-members.js';
import type { PromotionTrain, TrainSpec } from '../../../src/trains/train-resource.js';
import { trainStandings } from '../../../src/trains/train-standings.js';

function train(namespace: string, name: string, spec: TrainSpec, created?: string): PromotionTrain {
  return {
    apiVersion: 'pipelines.promotion-gateway.dev/v1alpha1',
    kind: 'PromotionTrain',
    metadata: { name, namespace, ...(created === undefined ? {} : { creationTimestamp: created }) },
    spec,
  };
}

const envs = ['dev', 'staging', 'prod'];
const fleet: Record<string, MemberCandidate[]> = {
  shop: [
    { name: 'api', environments: envs },
    { name: 'web', environments: envs },
    { name: 'solo', environments: ['prod'] },
  ],
  platform: [{ name: 'gateway', environments: envs }],
};
const candidates = (ns: string) => fleet[ns] ?? [];
const members = (...names: string[]) => ({ members: names.map((name) => ({ name })) });

describe('train standings', () => {
  it('gives a member held by two trains to the older one, in any listing order', () => {
    const older = train('shop', 'b-older', members('api', 'web'), '2026-12-01T00:00:00Z');
    const newer = train('shop', 'a-newer', members('api'), '2026-12-02T00:00:00Z');
    for (const listing of [
      [older, newer],
      [newer, older],
    ]) {
      const standings = trainStandings(listing, candidates, false);
      expect(standings.map((s) => [s.train.metadata.name, s.refusal?.reason])).toEqual([
        ['b-older', undefined],
        ['a-newer', 'MemberInAnotherTrain'],
      ]);
      expect(standings[1]?.refusal?.message).toContain('api is a member of shop/b-older');
    }
  });

  it('orders trains of the same age by name', () => {
    const at = '2026-12-01T00:00:00Z';
    const standings = trainStandings(
      [train('shop', 'zeta', members('api'), at), train('shop', 'alpha', members('api'), at)],
      candidates,
      false,
    );
    expect(standings.map((s) => [s.train.metadata.name, s.refusal?.reason])).toEqual([
      ['alpha', undefined],
      ['zeta', 'MemberInAnotherTrain'],
    ]);
  });

  it.each([
    [false, 'CrossNamespaceNotAllowed'],
    [['shop'], undefined],
    [['other'], 'CrossNamespaceNotAllowed'],
    [true, undefined],
  ] as const)('with crossNamespace %j a member of platform is %s', (policy, reason) => {
    const [standing] = trainStandings(
      [train('shop', 'release', members('api', 'platform/gateway'))],
      candidates,
      policy,
    );
    expect(standing?.refusal?.reason).toBe(reason);
    if (reason === undefined)
      expect(standing?.resolved.members.map((m) => m.name)).toEqual(['api', 'platform/gateway']);
    else expect(standing?.refusal?.message).toContain('platform/gateway');
  });

  it('refuses a train whose members share no gated environment', () => {
    const [standing] = trainStandings(
      [train('shop', 'release', members('api', 'solo'))],
      candidates,
      false,
    );
    expect(standing?.refusal?.reason).toBe('NoSharedEnvironment');
  });
});

describe('the book', () => {
  it('finds a Pipeline in the train in force, and in no refused one', () => {
    const book = new TrainBook(true);
    book.update([
      train('shop', 'first', members('api'), '2026-12-01T00:00:00Z'),
      train('shop', 'second', members('api', 'web'), '2026-12-02T00:00:00Z'),
      train('platform', 'edge', members('gateway', 'shop/web'), '2026-12-03T00:00:00Z'),
    ]);
    expect(book.membershipOf('shop', 'api', candidates)?.train.metadata.name).toBe('first');
    // second is refused (api is first's), so web is free for platform/edge.
    expect(book.membershipOf('shop', 'web', candidates)?.train.metadata.name).toBe('edge');
    expect(book.membershipOf('shop', 'web', candidates)?.member.name).toBe('shop/web');
    expect(book.membershipOf('other', 'api', candidates)).toBeUndefined();
  });

  it('tells its listeners when what it knows changed, not for the same listing', () => {
    const book = new TrainBook();
    let told = 0;
    book.onChange(() => (told += 1));
    const listing = [train('shop', 'first', members('api'))];
    book.update(listing);
    book.update(structuredClone(listing));
    expect(told).toBe(1);
  });
});
