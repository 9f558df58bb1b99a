/**
 * The next state of a release train's release into one environment, from what the train saw
 * verified together upstream and where each member stands (docs/policy.md, "Release trains").
 * Level-triggered: the same inputs give the same release, so a restart replays from the one
 * recorded. Pure: the train reconciler reads, probes and writes; this decides.
 */
import type { Combination, ObservedAt } from './train-combinations.js';
import type { TrainReleaseState } from './train-input.js';

/** A release as the train's status records it (times in ms). */
export interface Release extends Combination {
  state: TrainReleaseState;
  startedAt: number;
  /** When its promotion ended (Succeeded or Failed); absent for one that ended without promoting. */
  finishedAt?: number;
  /** The members whose gates (Waiting), rollout (Promoting) or failure (Failed) it names. */
  waitingFor: string[];
  reason: string;
  message: string;
}

/** Where one member stands in the environment, for the release's revision of it. */
export interface MemberStand {
  /** Its own gates (approvals, windows, soak, halts, checks) let the release revision through. */
  gatesMet: boolean;
  /** Every target in the environment runs the release revision, Healthy. */
  arrived: boolean;
  /** Its promotion of the release revision failed for good (retries spent, not retryable). */
  failed: boolean;
}

/** What the next release is decided from. */
export interface ReleaseInput {
  /** Combinations verified together upstream, newest first. */
  observed: readonly ObservedAt[];
  current?: Release;
  /** By member name, where each stands for its revision in `release`. */
  standsFor: (release: Combination) => Readonly<Record<string, MemberStand>>;
  /** Whether every member already runs `candidate`'s revisions healthy in the environment. */
  arrivedAll: (candidate: Combination) => boolean;
  suspended: boolean;
  now: number;
}

/**
 * The release to record next (the current one when nothing changes). A Promoting release
 * finishes (Succeeded when every member arrived, Failed when one failed); a Waiting one is
 * replaced by a newer combination, and starts Promoting once every member's gates are met; after
 * Succeeded or Failed, a combination newer than it starts a new Waiting release.
 */
export function nextRelease(input: ReleaseInput): Release | undefined {
  const { current } = input;
  if (current?.state === 'Promoting')
    return promoting(current, input.standsFor(current), input.now);
  const newest = input.observed[0];
  const fresh = newest !== undefined && newest.digest !== current?.digest;
  if (fresh && !input.suspended) {
    if (input.arrivedAll(newest)) return settled(newest, current, input.now);
    if (current === undefined || current.state === 'Waiting' || newerThan(newest, current))
      return waiting({ ...pick(newest), startedAt: input.now }, input);
  }
  if (current?.state === 'Waiting') return waiting(current, input);
  return current;
}

function pick(c: Combination): Combination {
  return { digest: c.digest, members: c.members };
}

function newerThan(seen: ObservedAt, current: Release): boolean {
  return seen.observedAt > current.startedAt;
}

/** A combination every member already runs: recorded as done, with no promotion. */
function settled(seen: Combination, current: Release | undefined, now: number): Release {
  if (current?.digest === seen.digest && current.state === 'Succeeded') return current;
  return {
    ...pick(seen),
    state: 'Succeeded',
    startedAt: now,
    waitingFor: [],
    reason: 'Arrived',
    message: 'every member already runs the combination',
  };
}

function waiting(base: Combination & { startedAt: number }, input: ReleaseInput): Release {
  const { suspended } = input;
  const stands = input.standsFor(base);
  const names = Object.keys(base.members).sort();
  const held = names.filter((n) => stands[n]?.gatesMet !== true);
  if (held.length === 0 && !suspended)
    return {
      ...base,
      state: 'Promoting',
      waitingFor: names,
      // As promoting() words it, so that the next pass writes nothing new.
      reason: 'Promoting',
      message: `promoting ${names.join(', ')}`,
    };
  return {
    ...base,
    state: 'Waiting',
    waitingFor: held,
    reason: suspended ? 'Suspended' : 'MemberGates',
    message: suspended ? 'the train is suspended' : `waiting for the gates of ${held.join(', ')}`,
  };
}

function promoting(
  current: Release,
  stands: Readonly<Record<string, MemberStand>>,
  now: number,
): Release {
  const names = Object.keys(current.members).sort();
  const failed = names.filter((n) => stands[n]?.failed === true);
  if (failed.length > 0)
    return {
      ...current,
      state: 'Failed',
      finishedAt: now,
      waitingFor: failed,
      reason: 'MemberFailed',
      message: `the promotion of ${failed.join(', ')} failed; the members not yet started are stopped`,
    };
  const pending = names.filter((n) => stands[n]?.arrived !== true);
  if (pending.length === 0)
    return {
      ...current,
      state: 'Succeeded',
      finishedAt: now,
      waitingFor: [],
      reason: 'Arrived',
      message: 'every member runs the combination',
    };
  return {
    ...current,
    waitingFor: pending,
    reason: 'Promoting',
    message: `promoting ${pending.join(', ')}`,
  };
}
