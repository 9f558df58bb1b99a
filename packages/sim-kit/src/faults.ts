/**
 * The bookkeeping every simulator's fault switchboard shares: the faults in force (set by kind,
 * cleared by kind), latency waited and counted, and requests held by a hang fault until it is
 * cleared. What a fault matches and what it answers stay with each simulator.
 */

/** What injected latency and hangs have done so far. */
export interface DelayStats {
  delayedRequests: number;
  injectedDelayMs: number;
  /** Requests currently held by a hang fault. */
  hanging: number;
}

/** The faults in force of kinds `S` (every kind optional; `hang` holds requests). */
export class FaultBook<S extends { hang?: unknown }> {
  private faults = {} as S;
  private readonly held = new Set<() => void>();
  private delayedRequests = 0;
  private injectedDelayMs = 0;

  constructor(private readonly sleep: (ms: number) => Promise<void>) {}

  /** The faults in force, live: a counted fault is used up in place. */
  get spec(): S {
    return this.faults;
  }

  /** Adds or replaces the given kinds; `hang: undefined` releases the hung requests. */
  set(spec: S): void {
    this.faults = { ...this.faults, ...spec };
    if ('hang' in spec && spec.hang === undefined) this.release();
  }

  /** Removes one kind of fault, or all; hung requests are released once no hang is left. */
  clear(kind?: keyof S): void {
    if (kind === undefined) this.faults = {} as S;
    else
      this.faults = Object.fromEntries(
        Object.entries(this.faults).filter(([k]) => k !== kind),
      ) as S;
    if (this.faults.hang === undefined) this.release();
  }

  /** A copy of the faults in force (counted faults show what is left of their count). */
  current(): S {
    return structuredClone(this.faults);
  }

  /** Waits `ms` before the request is served, and counts it. */
  async delay(ms: number): Promise<void> {
    this.delayedRequests++;
    this.injectedDelayMs += ms;
    await this.sleep(ms);
  }

  /** Holds the request until the hang fault is cleared (or the simulator closes). */
  hold(): Promise<void> {
    return new Promise<void>((resolve) => this.held.add(resolve));
  }

  /** Counters of the latency injected so far, and the requests hung now. */
  stats(): DelayStats {
    const { delayedRequests, injectedDelayMs } = this;
    return { delayedRequests, injectedDelayMs, hanging: this.held.size };
  }

  /** Releases every hung request. */
  release(): void {
    const pending = [...this.held];
    this.held.clear();
    for (const resolve of pending) resolve();
  }
}
