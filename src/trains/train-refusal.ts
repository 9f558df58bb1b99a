/**
 * The status of a train the gateway does not use: its Ready condition False with the reason
 * (an invalid spec, a refusal of train-standings.ts) and a message naming what to fix; the rest
 * of the stored status is kept as it was, so nothing a person reads disappears. Pure.
 */
import type { TrainStatus } from './train-resource.js';

/** Why a train is not used, as its Ready condition says it. */
export interface TrainRefusalInput {
  generation?: number;
  /** The members found, when the spec could be resolved. */
  members?: string[];
  reason: string;
  message: string;
}

/** The status to write for a refused train over `stored`, at `now` (ms). */
export function refusedTrainStatus(
  stored: TrainStatus | undefined,
  refusal: TrainRefusalInput,
  now: number,
): TrainStatus {
  const before = stored?.conditions?.find((c) => c.type === 'Ready');
  const lastTransitionTime =
    before?.status === 'False' ? before.lastTransitionTime : new Date(now).toISOString();
  const others = (stored?.conditions ?? []).filter((c) => c.type !== 'Ready');
  const generation = refusal.generation;
  return {
    ...stored,
    ...(generation === undefined ? {} : { observedGeneration: generation }),
    conditions: [
      {
        type: 'Ready',
        status: 'False',
        reason: refusal.reason,
        message: refusal.message,
        lastTransitionTime,
        ...(generation === undefined ? {} : { observedGeneration: generation }),
      },
      ...others,
    ],
    ...(refusal.members === undefined ? {} : { members: refusal.members }),
  };
}

/** The Ready condition's reason in `status`, if any. */
export function readyReason(status: TrainStatus | undefined): string | undefined {
  return status?.conditions?.find((c) => c.type === 'Ready')?.reason;
}
