/**
 * The one writer of the PromotionTrain status subresource, as kube/status-writer.ts is the
 * Pipeline's: a change is a pure function of the stored train, applied with the stored
 * resourceVersion as precondition and re-applied to a fresh read after a 409 (the shared
 * CONFLICT_POLICY). Only the resync Lease holder runs the train reconciler; the precondition
 * keeps a replica that just lost the Lease from overwriting its successor.
 */
import type { TrainWriter } from '../kube/ports.js';
import {
  writeConditionally,
  type ConditionalPort,
  type ConditionalWrite,
  type ConditionalWriterOptions,
} from '../kube/conditional-write.js';
import { asUncheckedTrain, type TrainStatus, type UncheckedTrain } from './train-resource.js';

/** What a change makes of the stored train: a status to write, or no write at all. */
export type TrainChangeVerdict<V> = { write: TrainStatus; verdict: V } | { keep: V };

/** The one writer of PromotionTrain statuses; see the module comment. */
export class TrainStatusWriter {
  private readonly conditional: ConditionalPort<UncheckedTrain, TrainStatus>;

  constructor(
    private readonly port: TrainWriter,
    private readonly options: ConditionalWriterOptions,
  ) {
    this.conditional = {
      kind: 'PromotionTrain',
      read: async (ref) => {
        const fresh = await this.port.getTrain(ref.namespace, ref.name);
        return fresh === undefined ? undefined : asStoredTrain(fresh);
      },
      replace: async (stored, status) => {
        const result = await this.port.replaceTrainStatus({ ...stored, status });
        return result.conflict ? result : { conflict: false, value: asStoredTrain(result.value) };
      },
    };
  }

  /** Applies `change` to `train` and, after a 409, to every fresh read of it. */
  apply<V>(
    train: UncheckedTrain,
    change: (stored: UncheckedTrain) => TrainChangeVerdict<V>,
  ): Promise<ConditionalWrite<UncheckedTrain, V>> {
    return writeConditionally(this.conditional, this.options, train, change);
  }
}

/** The API server's answer as a stored train; anything else is a bug worth a throw. */
function asStoredTrain(object: unknown): UncheckedTrain {
  const train = asUncheckedTrain(object);
  if (train === undefined) throw new TypeError('expected a PromotionTrain from the API server');
  return train;
}
