/**
 * Combinations a release train saw verified together: at one observation, every member's
 * upstream environment had every target Healthy at one revision. Pure: the verified targets
 * and the observation's time come in; the digest naming a combination is computed by the caller
 * (src/trains/combination-digest.ts), since hashing is not the decision core's.
 */
import type { TargetStatus } from './decisions.js';
import { summarise } from './target-states.js';

/** One combination of the members' revisions, named by its digest. */
export interface Combination {
  digest: string;
  /** Each member's revision, by member name. */
  members: Readonly<Record<string, string>>;
}

/** A combination and when (ms) it was last seen verified together. */
export interface ObservedAt extends Combination {
  observedAt: number;
}

/**
 * The members' revisions if every member's upstream targets (by member name) are all Healthy at
 * one revision now; undefined when any member is not (or has no targets, or none are given).
 */
export function verifiedTogether(
  upstream: Readonly<Record<string, readonly TargetStatus[]>>,
): Record<string, string> | undefined {
  const members: Record<string, string> = {};
  const names = Object.keys(upstream).sort();
  if (names.length === 0) return undefined;
  for (const name of names) {
    const summary = summarise(upstream[name] ?? []);
    if (summary.kind !== 'Ready') return undefined;
    members[name] = summary.revision;
  }
  return members;
}

/**
 * `observed` (newest first) with `seen` recorded at `at`: kept as it is when `seen` is already the
 * newest (its time is when it became the newest, so a steady fleet writes nothing), else moved or
 * added to the front at `at`, the list cut to `max`. The input is not changed.
 */
export function recordObservation(
  observed: readonly ObservedAt[],
  seen: Combination,
  at: number,
  max: number,
): ObservedAt[] {
  if (observed[0]?.digest === seen.digest) return [...observed];
  const others = observed.filter((c) => c.digest !== seen.digest);
  return [{ digest: seen.digest, members: seen.members, observedAt: at }, ...others].slice(0, max);
}
