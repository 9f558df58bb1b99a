/**
 * The status a train reconciler pass writes, computed from the status as stored and what the
 * pass saw (a snapshot of the members' verified state): per gated environment, the combination
 * seen verified together upstream now (recorded in the bounded `observed` list) and the next
 * release (evaluate/train-release.ts), and the Ready condition. Applied to the stored status on
 * every attempt of the conditional write, so a 409 re-decides on what another writer left.
 */
import type { Combination, ObservedAt } from '../evaluate/train-combinations.js';
import { recordObservation } from '../evaluate/train-combinations.js';
import { nextRelease, type MemberStand, type Release } from '../evaluate/train-release.js';
import { MAX_OBSERVED_COMBINATIONS } from '../shapes/promotion-train.js';
import { combinationOf } from './combination-digest.js';
import type { TrainEnvironment, TrainRelease, TrainStatus } from './train-resource.js';

/** What a pass saw of one gated environment. */
export interface EnvironmentSnapshot {
  name: string;
  /** Each member's revision, if every member's upstream ran it healthy when the pass read. */
  together?: Readonly<Record<string, string>>;
  /** Where each member stands in the environment for its revision in `release`. */
  standsFor: (release: Combination) => Readonly<Record<string, MemberStand>>;
  /** Whether every member runs `release`'s revisions healthy in the environment. */
  arrivedAll: (release: Combination) => boolean;
  /** The members rolled back from their revision in `release` by the train; absent = none. */
  rolledBack?: (release: Combination) => readonly string[];
}

/** What a pass saw of one train. */
export interface TrainSnapshot {
  generation?: number;
  members: string[];
  /** Members the spec names that no Pipeline of the namespace is. */
  missing: string[];
  environments: EnvironmentSnapshot[];
  suspended: boolean;
}

/** The status to write for `snapshot` over `stored`, at `now` (ms). */
export function nextTrainStatus(
  stored: TrainStatus | undefined,
  snapshot: TrainSnapshot,
  now: number,
): TrainStatus {
  const environments = snapshot.environments.map((env) =>
    nextEnvironment(
      stored?.environments?.find((e) => e.name === env.name),
      env,
      snapshot.suspended,
      now,
    ),
  );
  return {
    ...(snapshot.generation === undefined ? {} : { observedGeneration: snapshot.generation }),
    conditions: [readyCondition(stored, snapshot, now)],
    members: snapshot.members,
    environments,
    // The events it owes are the notifications' (notify/train-events.ts): kept as they are.
    ...(stored?.outbox === undefined ? {} : { outbox: stored.outbox }),
  };
}

function nextEnvironment(
  stored: TrainEnvironment | undefined,
  env: EnvironmentSnapshot,
  suspended: boolean,
  now: number,
): TrainEnvironment {
  let observed = (stored?.observed ?? []).map(observedOf);
  if (env.together !== undefined)
    observed = recordObservation(
      observed,
      combinationOf(env.together),
      now,
      MAX_OBSERVED_COMBINATIONS,
    );
  const current = stored?.release === undefined ? undefined : releaseOf(stored.release);
  const release = nextRelease({
    observed,
    ...(current === undefined ? {} : { current }),
    standsFor: env.standsFor,
    arrivedAll: env.arrivedAll,
    suspended,
    now,
  });
  return {
    name: env.name,
    observed: observed.map((o) => ({
      digest: o.digest,
      members: { ...o.members },
      observedAt: iso(o.observedAt),
    })),
    ...(release === undefined
      ? {}
      : { release: withRolledBack(storedRelease(release), stored?.release, env) }),
  };
}

/** A Failed release with the members rolled back from it (those recorded before kept). */
function withRolledBack(
  release: TrainRelease,
  stored: TrainRelease | undefined,
  env: EnvironmentSnapshot,
): TrainRelease {
  if (release.state !== 'Failed' || env.rolledBack === undefined) return release;
  const before = stored?.digest === release.digest ? (stored.rolledBack ?? []) : [];
  const names = [...new Set([...before, ...env.rolledBack(release)])].sort();
  return names.length === 0 ? release : { ...release, rolledBack: names };
}

function observedOf(o: NonNullable<TrainEnvironment['observed']>[number]): ObservedAt {
  return { digest: o.digest, members: o.members, observedAt: Date.parse(o.observedAt) };
}

function releaseOf(r: TrainRelease): Release {
  return {
    digest: r.digest,
    members: r.members,
    state: r.state,
    startedAt: Date.parse(r.startedAt),
    ...(r.finishedAt === undefined ? {} : { finishedAt: Date.parse(r.finishedAt) }),
    waitingFor: r.waitingFor ?? [],
    reason: r.reason ?? '',
    message: r.message ?? '',
  };
}

function storedRelease(r: Release): TrainRelease {
  return {
    digest: r.digest,
    members: { ...r.members },
    state: r.state,
    startedAt: iso(r.startedAt),
    ...(r.finishedAt === undefined ? {} : { finishedAt: iso(r.finishedAt) }),
    waitingFor: r.waitingFor,
    reason: r.reason,
    message: r.message,
  };
}

function readyCondition(stored: TrainStatus | undefined, snapshot: TrainSnapshot, now: number) {
  const ready = snapshot.missing.length === 0 && snapshot.members.length > 0;
  const status: 'True' | 'False' = ready ? 'True' : 'False';
  const reason = ready ? 'MembersFound' : 'MembersMissing';
  const message = ready
    ? `${String(snapshot.members.length)} members: ${snapshot.members.join(', ')}`
    : snapshot.members.length === 0 && snapshot.missing.length === 0
      ? 'no Pipeline of the namespace is a member'
      : `members not found: ${snapshot.missing.join(', ')}`;
  const before = stored?.conditions?.find((c) => c.type === 'Ready');
  const lastTransitionTime = before?.status === status ? before.lastTransitionTime : iso(now);
  return {
    type: 'Ready',
    status,
    reason,
    message,
    lastTransitionTime,
    ...(snapshot.generation === undefined ? {} : { observedGeneration: snapshot.generation }),
  };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
