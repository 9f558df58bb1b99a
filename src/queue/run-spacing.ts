/**
 * Keeps runs of one key at least `intervalMs` apart, remembering only starts recent enough to
 * matter, so memory stays bounded by the keys started in the last interval. This is what holds
 * a burst of identical hints that arrives over a few hundred milliseconds to two reads.
 */
export class RunSpacing {
  /**
   * `intervalMs` <= 0 disables spacing (every run may start at once). `lastStarts` holds the
   * start time of recent runs by key id, oldest first; pass one in to watch its size.
   */
  constructor(
    private readonly intervalMs: number,
    private readonly lastStarts = new Map<string, number>(),
  ) {}

  /** The earliest time a run of `id` may start: `at`, or later to keep the interval. */
  notBefore(id: string, at: number): number {
    const last = this.lastStarts.get(id);
    return last === undefined ? at : Math.max(at, last + this.intervalMs);
  }

  /** Records that `id` started at `now` and forgets starts that no longer hold anything back. */
  started(id: string, now: number): void {
    if (this.intervalMs <= 0) return;
    // Re-inserting keeps the map in start order, so the sweep can stop at the first recent one.
    this.lastStarts.delete(id);
    this.lastStarts.set(id, now);
    for (const [oldId, startedAt] of this.lastStarts) {
      if (startedAt + this.intervalMs > now) break;
      this.lastStarts.delete(oldId);
    }
  }
}
