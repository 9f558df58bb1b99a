/**
 * A soak is never shorter than configured, across restarts and replicas with different views,
 * and every break resets it: properties of the model in test/support/soak-model.ts, which runs
 * the real streaks, view change and evaluator.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseTimestamp } from '../../../src/time/kube-time.js';
import { SOAK_MS, T0, World, actionArb, isBreakFor, run } from '../../support/soak-model.js';

describe.each([2, 1])('the soak, with %i replica(s)', (replicas) => {
  it('never promotes before the soak, counted from a real read, after every break it knew of', () => {
    fc.assert(
      fc.property(
        fc.array(actionArb(replicas, true, true), { minLength: 30, maxLength: 90, size: 'max' }),
        (actions) => {
          const world = new World(replicas);
          for (const action of actions) {
            const before = world.promotions.length;
            world.apply(action);
            for (const p of world.promotions.slice(before)) {
              // Counted from a Healthy read of this revision, at least the soak ago.
              expect(p.at - p.since).toBeGreaterThanOrEqual(SOAK_MS);
              const counted = world.observations.some(
                (o) =>
                  o.time === p.since &&
                  o.status.health === 'Healthy' &&
                  o.status.revision === p.revision,
              );
              expect(counted).toBe(true);
              // Every break the decider read itself, or that its reader wrote since, came before.
              for (const o of world.observations.filter(isBreakFor(p.revision))) {
                if (world.known(o, p.replica, p.seq)) expect(o.time).toBeLessThan(p.since);
              }
            }
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('keeps the stored healthy-since through restarts and replicas while nothing breaks', () => {
    fc.assert(
      fc.property(
        fc.array(actionArb(replicas, false, false), { minLength: 30, maxLength: 90, size: 'max' }),
        (actions) => {
          const world = new World(replicas);
          let first: string | undefined;
          for (const action of actions) {
            const before = world.promotions.length;
            world.apply(action);
            const since = world.stored.status?.environments?.dev?.healthySince;
            if (first === undefined && since !== undefined) first = since.time;
            // Once written it never moves: no restart, late replica or later read resets it.
            if (first !== undefined) expect(since?.time).toBe(first);
            for (const p of world.promotions.slice(before)) {
              expect(p.since).toBe(parseTimestamp(first));
              expect(p.at - p.since).toBeGreaterThanOrEqual(SOAK_MS);
            }
            // And once the soak has passed by it, a replica that checks promotes (not reset).
            const decider = 'replica' in action ? world.replicas[action.replica] : undefined;
            const hasRead = decider?.reads.every((read) => read !== undefined) === true;
            const due = first !== undefined && world.now - (parseTimestamp(first) ?? 0) >= SOAK_MS;
            if (action.kind === 'decide' && hasRead && due) {
              expect(world.promotions.length).toBe(before + 1);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('resets at every Unhealthy read as soon as its reader writes', () => {
    fc.assert(
      fc.property(
        fc.array(actionArb(replicas, true, true), { minLength: 30, maxLength: 90, size: 'max' }),
        (actions) => {
          const world = new World(replicas);
          for (const action of actions) {
            const writesBefore = world.writes.length;
            world.apply(action);
            if (world.writes.length === writesBefore) continue;
            const since = world.stored.status?.environments?.dev?.healthySince;
            const at = parseTimestamp(since?.time);
            if (since === undefined || at === undefined) continue;
            // No read written so far found dev otherwise after the stored time.
            for (const o of world.observations.filter(isBreakFor(since.revision))) {
              const written = world.writes.some(
                (w) => w.seq > o.seq && w.replica === o.replica && w.incarnation === o.incarnation,
              );
              if (written && o.status.health === 'Unhealthy') expect(o.time).toBeLessThan(at);
            }
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

it('the model does reach promotions, resets and restarts (the properties are not vacuous)', () => {
  const world = run(2, [
    { kind: 'read', replica: 0, target: 0, fails: false },
    { kind: 'read', replica: 0, target: 1, fails: false },
    { kind: 'write', replica: 0 },
    { kind: 'tick', ms: 30_000 },
    { kind: 'restart', replica: 0 },
    { kind: 'read', replica: 0, target: 0, fails: false },
    { kind: 'read', replica: 0, target: 1, fails: false },
    { kind: 'decide', replica: 0 },
    { kind: 'tick', ms: 30_000 },
    { kind: 'decide', replica: 0 },
  ]);
  // dev's targets were read at 0 and 1 ms: healthy since 1 ms, which the restart did not move;
  // the one promotion comes after the 60 s (the reads since took a millisecond each).
  expect(world.promotions.map((p) => [p.replica.id, p.at - T0, p.since - T0])).toEqual([
    [0, 60_008, 1],
  ]);
  const reset = run(1, [
    { kind: 'read', replica: 0, target: 0, fails: false },
    { kind: 'read', replica: 0, target: 1, fails: false },
    { kind: 'write', replica: 0 },
    { kind: 'tick', ms: 50_000 },
    { kind: 'change', target: 1, health: 'Unhealthy', revision: '1.0.0' },
    { kind: 'read', replica: 0, target: 1, fails: false },
    { kind: 'change', target: 1, health: 'Healthy', revision: '1.0.0' },
    { kind: 'tick', ms: 1_000 },
    { kind: 'read', replica: 0, target: 1, fails: false },
    { kind: 'tick', ms: 20_000 },
    { kind: 'decide', replica: 0 },
  ]);
  expect(reset.promotions).toEqual([]);
  const [only] = reset.replicas;
  if (only === undefined) throw new Error('no replica');
  expect(reset.prodDecision(only)).toMatchObject({
    reason: 'Soaking',
    message: 'dev has run 1.0.0 healthy for 20s of 60s; prod waits 40s more',
  });
});
