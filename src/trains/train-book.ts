/**
 * What every replica knows of the PromotionTrains: the latest listing (a periodic one on every
 * replica, and the Lease holder's after each of its writes), so that the evaluation of any
 * member Pipeline, on any replica, meets its train's gate. Before the first listing nothing is
 * known; the gateway lists once before it starts checking Pipelines (wiring/trains.ts). Which
 * train holds a Pipeline follows the trains' precedence (train-standings.ts), the same on every
 * replica.
 */
import { jsonEqual } from '../json/json-equal.js';
import { memberRef, type CandidatesOf, type MemberCandidate } from './train-members.js';
import {
  namespacesOf,
  trainStandings,
  type CrossNamespacePolicy,
  type TrainStanding,
} from './train-standings.js';
import { trainName, type PromotionTrain, type TrainMember } from './train-resource.js';

/** The train a Pipeline belongs to, its entry, and the environments the train gates. */
export interface Membership {
  train: PromotionTrain;
  member: TrainMember;
  environments: string[];
}

/** The trains known, and the question the evaluation asks of them. */
export class TrainBook {
  private trains: readonly PromotionTrain[] = [];
  private readonly listeners = new Set<() => void>();

  /** `policy`: config `trains.crossNamespace`. */
  constructor(readonly policy: CrossNamespacePolicy = false) {}

  /** Replaces what is known with a whole listing of the usable trains. */
  update(trains: readonly PromotionTrain[]): void {
    const same = jsonEqual(this.trains, trains);
    this.trains = trains;
    if (!same) this.tell();
  }

  /** Replaces one train (as just written) in what is known. */
  replace(train: PromotionTrain): void {
    const before = this.trains;
    this.trains = before.map((t) => (trainName(t) === trainName(train) ? train : t));
    if (!jsonEqual(before, this.trains)) this.tell();
  }

  /** Every train known, by namespace then name. */
  all(): readonly PromotionTrain[] {
    return this.trains;
  }

  /** Calls `listener` after the known trains changed; returns an unsubscribe. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Every known train's standing, in precedence order. */
  standings(candidates: CandidatesOf): TrainStanding[] {
    return trainStandings(this.trains, memo(candidates), this.policy);
  }

  /**
   * The train in force that holds the Pipeline `namespace/name`, resolved against `candidates`
   * (the Pipelines of a namespace); undefined when none does. No train touches the namespace:
   * no resolution at all.
   */
  membershipOf(namespace: string, name: string, candidates: CandidatesOf): Membership | undefined {
    const near = this.connected(namespace);
    if (near.length === 0) return undefined;
    for (const standing of trainStandings(near, memo(candidates), this.policy)) {
      if (standing.refusal !== undefined) continue;
      const own = standing.train.metadata.namespace;
      const member = standing.resolved.members.find((m) => {
        const ref = memberRef(own, m.name);
        return ref.namespace === namespace && ref.name === name;
      });
      if (member !== undefined)
        return { train: standing.train, member, environments: standing.resolved.environments };
    }
    return undefined;
  }

  /**
   * The trains whose standing can decide a Pipeline of `namespace`: those touching it, and those
   * touching a namespace they touch (a train refused elsewhere frees its members here).
   */
  private connected(namespace: string): PromotionTrain[] {
    const namespaces = new Set([namespace]);
    const found = new Set<PromotionTrain>();
    let grew = true;
    while (grew) {
      grew = false;
      for (const train of this.trains) {
        if (found.has(train)) continue;
        const touched = namespacesOf(train);
        if (![...touched].some((ns) => namespaces.has(ns))) continue;
        found.add(train);
        for (const ns of touched) namespaces.add(ns);
        grew = true;
      }
    }
    return [...found];
  }

  private tell(): void {
    for (const listener of this.listeners) listener();
  }
}

/** `candidates` asked once per namespace. */
function memo(candidates: CandidatesOf): CandidatesOf {
  const seen = new Map<string, readonly MemberCandidate[]>();
  return (namespace) => {
    let found = seen.get(namespace);
    if (found === undefined) {
      found = candidates(namespace);
      seen.set(namespace, found);
    }
    return found;
  };
}
