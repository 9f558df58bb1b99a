/**
 * A counting semaphore for promises: at most `slots` tasks run at once, the rest wait in
 * arrival order. Bounds LISTs in flight (memory, sockets) without a dependency.
 */
export class Limiter {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private slots: number) {}

  /** Changes the number of slots: waiters start at once when it grows; running tasks finish. */
  resize(slots: number): void {
    this.slots = slots;
    while (this.running < this.slots && this.waiting.length > 0) {
      this.running += 1;
      this.waiting.shift()?.();
    }
  }

  /** True when no task runs or waits. */
  idle(): boolean {
    return this.running === 0 && this.waiting.length === 0;
  }

  /** Runs `task` once a slot is free; resolves or rejects as the task does. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.slots) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running += 1;
    }
    try {
      return await task();
    } finally {
      // The slot passes straight to the next waiter, so `running` only drops when none waits
      // (or when the slots were cut below the tasks running).
      const next = this.running > this.slots ? undefined : this.waiting.shift();
      if (next === undefined) this.running -= 1;
      else next();
    }
  }
}
