/**
 * The verify stage's rare values per slot (see stored-reads.ts): the few a read holds that
 * differ from what its columns already say. A column each would cost 8 bytes per object for a
 * value nearly every object lacks; a map by slot costs only where one is present.
 */
import type { TargetStatus } from '../evaluate/decisions.js';

/** A slot's values kept apart from its columns (undefined: none to keep). */
export interface SlotExtra {
  /** A settled status other than the status (a target in progress after a settled state). */
  settled?: TargetStatus | undefined;
  /** A streak's healthy revision other than the status's. */
  healthy?: string | undefined;
  /** A time last seen other than the last read's (the last read was Unknown). */
  seenAt?: number | undefined;
}

/** The extras of every slot that has one. */
export class SlotExtras {
  private readonly settledBy = new Map<number, TargetStatus>();
  private readonly healthyBy = new Map<number, string>();
  private readonly seenAtBy = new Map<number, number>();

  /** Replaces the slot's extras by `extra`: each value undefined is forgotten. */
  set(slot: number, extra: SlotExtra): void {
    keep(this.settledBy, slot, extra.settled);
    keep(this.healthyBy, slot, extra.healthy);
    keep(this.seenAtBy, slot, extra.seenAt);
  }

  settled(slot: number): TargetStatus | undefined {
    return this.settledBy.get(slot);
  }

  healthy(slot: number): string | undefined {
    return this.healthyBy.get(slot);
  }

  seenAt(slot: number): number | undefined {
    return this.seenAtBy.get(slot);
  }
}

function keep<V>(map: Map<number, V>, slot: number, value: V | undefined): void {
  if (value === undefined) map.delete(slot);
  else map.set(slot, value);
}
