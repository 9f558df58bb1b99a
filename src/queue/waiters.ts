/**
 * Callers waiting for a condition (a queue being idle, say), all woken together the first time
 * someone checks and finds it holds.
 */

/** Waiters for one condition. */
export class Waiters {
  private waiting: (() => void)[] = [];

  /** `holds` is read on every wait and wake; it must not throw. */
  constructor(private readonly holds: () => boolean) {}

  /** Resolves at once when the condition holds, else at the first wake() that finds it holds. */
  wait(): Promise<void> {
    if (this.holds()) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Resolves every waiter when the condition holds now; does nothing otherwise. */
  wake(): void {
    if (this.waiting.length === 0 || !this.holds()) return;
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve();
  }
}
