/**
 * What every replica knows of the PromotionTrains: the latest listing (a periodic one on every
 * replica, and the Lease holder's after each of its writes), so that the evaluation of any
 * member Pipeline, on any replica, meets its train's gate. Before the first listing nothing is
 * known; the gateway lists once before it starts checking Pipelines (wiring/trains.ts).
 */
import { resolveTrain, type MemberCandidate } from './train-members.js';
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

  /** Replaces what is known with a whole listing of the usable trains. */
  update(trains: readonly PromotionTrain[]): void {
    this.trains = trains;
  }

  /** Replaces one train (as just written) in what is known. */
  replace(train: PromotionTrain): void {
    this.trains = this.trains.map((t) => (trainName(t) === trainName(train) ? train : t));
  }

  /** Every train known, by namespace then name. */
  all(): readonly PromotionTrain[] {
    return this.trains;
  }

  /**
   * The first train (by name) of `namespace` that holds the Pipeline `name`, resolved against
   * `candidates` (the namespace's Pipelines); undefined when none does. No train: O(1).
   */
  membershipOf(
    namespace: string,
    name: string,
    candidates: () => readonly MemberCandidate[],
  ): Membership | undefined {
    const here = this.trains.filter((t) => t.metadata.namespace === namespace);
    if (here.length === 0) return undefined;
    const pipelines = candidates();
    for (const train of here) {
      const resolved = resolveTrain(train, pipelines);
      const member = resolved.members.find((m) => m.name === name);
      if (member !== undefined) return { train, member, environments: resolved.environments };
    }
    return undefined;
  }
}
