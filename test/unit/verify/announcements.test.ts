/**
 * What counts as a change an event announces, and one replica's word on whether one did: a
 * settled state (readable, not mid-reconciliation) that differs in health or revision is a
 * change; an Unknown read observes nothing; an event after the previous state was last seen
 * announces the change; only accepted Flux events and legacy calls announce.
 */
import { describe, expect, it } from 'vitest';
import type { TargetStatus } from '../../../src/evaluate/decisions.js';
import {
  announcementOf,
  announces,
  isSettled,
  observe,
  type Observations,
} from '../../../src/verify/announcements.js';

const location = { cluster: 'dev', namespace: 'apps' };
const healthy = (revision: string): TargetStatus => ({
  location,
  health: 'Healthy',
  reason: 'Ready',
  message: `ready at ${revision}`,
  revision,
});
const unhealthy = (reason: string, revision = '1.0.0'): TargetStatus => ({
  location,
  health: 'Unhealthy',
  reason,
  message: reason,
  revision,
});
const unknown: TargetStatus = { location, health: 'Unknown', reason: 'Unavailable', message: 'x' };

describe('isSettled', () => {
  it.each([
    ['Healthy', healthy('1.0.0'), true],
    ['a failed upgrade', unhealthy('UpgradeFailed'), true],
    ['stalled', unhealthy('Stalled'), true],
    ['a spec not reconciled yet', unhealthy('StaleGeneration'), false],
    ['reconciling', unhealthy('Reconciling'), false],
    ['progressing', unhealthy('Progressing'), false],
    ['unreadable', unknown, false],
  ])('%s -> %s', (_name, status, settled) => {
    expect(isSettled(status)).toBe(settled);
  });
});

/** Reads in order (each at its time); what the last one replaced, and the observations. */
function reads(...steps: [TargetStatus, number][]): {
  replaced: TargetStatus | undefined;
  observations: Observations;
} {
  let observations: Observations | undefined;
  let replaced: TargetStatus | undefined;
  for (const [status, at] of steps) {
    const result = observe(observations, status, at);
    observations = result.observations;
    replaced = result.replaced;
  }
  return { replaced, observations: observations ?? {} };
}

describe('observe', () => {
  it.each<[string, [TargetStatus, number][], string | undefined, number | undefined]>([
    ['the first settled read replaces nothing', [[healthy('1'), 10]], undefined, undefined],
    [
      'the same state again',
      [
        [healthy('1'), 10],
        [healthy('1'), 20],
      ],
      undefined,
      undefined,
    ],
    [
      'a new revision',
      [
        [healthy('1'), 10],
        [healthy('2'), 20],
      ],
      '1 Healthy',
      10,
    ],
    [
      'a failed upgrade',
      [
        [healthy('1'), 10],
        [unhealthy('UpgradeFailed', '1'), 20],
      ],
      '1 Healthy',
      10,
    ],
    [
      'a new revision reached through a reconciliation: compared with the state before it',
      [
        [healthy('1'), 10],
        [unhealthy('Reconciling', '1'), 20],
        [healthy('2'), 30],
      ],
      '1 Healthy',
      20,
    ],
    [
      'a reconciliation that ends where it began is no change',
      [
        [healthy('1'), 10],
        [unhealthy('Reconciling', '1'), 20],
        [healthy('1'), 30],
      ],
      undefined,
      undefined,
    ],
    [
      'an outage observes nothing: the previous observation stays the last readable read',
      [
        [healthy('1'), 10],
        [unknown, 20],
        [unknown, 25],
        [healthy('2'), 30],
      ],
      '1 Healthy',
      10,
    ],
    [
      'mid-reconciliation is not a change',
      [
        [healthy('1'), 10],
        [unhealthy('StaleGeneration'), 20],
      ],
      undefined,
      undefined,
    ],
  ])('%s', (_name, steps, replaced, since) => {
    const result = reads(...steps);
    const before = result.replaced;
    expect(before === undefined ? undefined : `${before.revision ?? '-'} ${before.health}`).toBe(
      replaced,
    );
    if (replaced !== undefined) expect(result.observations.since).toBe(since);
  });

  it('a change clears the mark a pass left on the state before', () => {
    const marked = { ...reads([healthy('1'), 10], [healthy('2'), 20]).observations };
    marked.unannounced = true;
    expect(observe(marked, healthy('2'), 30).observations.unannounced).toBe(true);
    expect(observe(marked, unknown, 30).observations.unannounced).toBe(true);
    expect(observe(marked, healthy('3'), 30).observations.unannounced).toBe(false);
  });
});

describe('announcementOf', () => {
  const changed: Observations = { settled: healthy('2'), seenAt: 20, since: 10 };
  it.each<[string, Observations | undefined, number | undefined, string | undefined]>([
    ['no event, no mark', changed, undefined, undefined],
    ['an event before the previous state was last seen', changed, 9, undefined],
    ['an event after it (the read it caused found the change)', changed, 10, 'announced'],
    ['a mark a pass left', { ...changed, unannounced: true }, undefined, 'unannounced'],
    ['a mark, then an event', { ...changed, unannounced: true }, 25, 'announced'],
    ['a mark and an old event', { ...changed, unannounced: true }, 5, 'unannounced'],
    ['an event about a state seen first', { settled: healthy('1'), seenAt: 10 }, 3, 'announced'],
    ['never read', undefined, undefined, undefined],
  ])('%s -> %s', (_name, observations, eventAt, expected) => {
    expect(announcementOf(observations, eventAt)).toBe(expected);
  });
});

describe('announces', () => {
  it.each([
    ['flux-event', 'queued', true],
    ['flux-event', 'coalesced', true],
    ['legacy-webhook', 'queued', true],
    ['flux-event', 'full', false],
    ['flux-event', 'dropped-unreferenced', false],
    ['stale-status', 'queued', false],
  ] as const)('%s %s -> %s', (source, result, expected) => {
    expect(announces(source, result)).toBe(expected);
  });
});
