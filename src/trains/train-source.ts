/**
 * The PromotionTrains of the management cluster, as the train reconciler sees them on each pass:
 * one paged LIST (or one per configured namespace) through the management cluster's
 * ObjectReader, every train checked (train-check.ts). A train that fails the check is returned
 * with its problem, not dropped, so its status can say why (Ready=False).
 */
import type { ObjectReader, ReadFailureReason } from '../kube/ports.js';
import { checkTrain, type SpecReason } from './train-check.js';
import {
  TRAIN_API_VERSION,
  TRAIN_KIND,
  asUncheckedTrain,
  trainName,
  type PromotionTrain,
  type UncheckedTrain,
} from './train-resource.js';

/** Every train listed, sorted by namespace then name: usable ones and invalid ones. */
export interface TrainListing {
  trains: PromotionTrain[];
  invalid: { train: UncheckedTrain; reason: SpecReason; problem: string }[];
}

/** A listing, or why the trains could not be listed (secret-free). */
export type TrainListResult =
  ({ ok: true } & TrainListing) | { ok: false; reason: ReadFailureReason; message: string };

/** Lists and checks the PromotionTrains of the management cluster. */
export class TrainSource {
  /** `namespaces`: where to list; empty = every namespace (the gateway's pipelineNamespaces). */
  constructor(
    private readonly management: ObjectReader,
    private readonly namespaces: readonly string[],
  ) {}

  /** The current trains; when any scope fails the whole listing fails (no false deletions). */
  async list(): Promise<TrainListResult> {
    const scopes = this.namespaces.length === 0 ? [undefined] : this.namespaces;
    const objects: unknown[] = [];
    const results = await Promise.all(
      scopes.map((namespace) =>
        this.management.list(TRAIN_API_VERSION, TRAIN_KIND, namespace, (page) => {
          objects.push(...page);
        }),
      ),
    );
    for (const failed of results) {
      if (failed.ok) continue;
      const message = `listing PromotionTrains failed: ${failed.message}`;
      return { ok: false, reason: failed.reason, message };
    }
    return { ok: true, ...checkTrains(objects) };
  }
}

/** Checks listed objects (anything not shaped like a stored train is skipped). */
export function checkTrains(objects: readonly unknown[]): TrainListing {
  const listing: TrainListing = { trains: [], invalid: [] };
  for (const object of objects) {
    const train = asUncheckedTrain(object);
    if (train === undefined) continue;
    const checked = checkTrain(train);
    if (checked.ok) listing.trains.push(checked.train);
    else
      listing.invalid.push({
        train: checked.train,
        reason: checked.reason,
        problem: checked.problem,
      });
  }
  const order = (a: UncheckedTrain, b: UncheckedTrain) =>
    trainName(a) < trainName(b) ? -1 : trainName(a) > trainName(b) ? 1 : 0;
  listing.trains.sort(order);
  listing.invalid.sort((a, b) => order(a.train, b.train));
  return listing;
}
