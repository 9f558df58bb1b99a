/**
 * Part (c): the gateway process's resident set size, sampled on a timer through the whole run
 * by the gateway process itself (gateway-process.ts). That process holds only the gateway and
 * this sampler; the benchmark, the kube-sim fleet, the bare server and the load client run in
 * other processes.
 */

/** Largest values seen in one phase of the run, in bytes. */
export interface PhaseMemory {
  phase: string;
  rssMaxBytes: number;
  heapUsedMaxBytes: number;
  /** RSS when the phase ended. */
  rssEndBytes: number;
}

/** Largest values seen over the whole run, in bytes, and per phase. */
export interface MemoryReport {
  samples: number;
  intervalMs: number;
  rssMaxBytes: number;
  heapUsedMaxBytes: number;
  rssFinalBytes: number;
  phases: PhaseMemory[];
}

/** Samples process.memoryUsage() every `intervalMs` until stopped. */
export class MemorySampler {
  private samples = 0;
  private rssMax = 0;
  private heapMax = 0;
  private atPeak: NodeJS.MemoryUsage | undefined;
  private current: PhaseMemory;
  private readonly phases: PhaseMemory[] = [];
  private readonly timer: NodeJS.Timeout;

  /** Starts sampling at once, in a phase named `firstPhase`. */
  constructor(
    firstPhase: string,
    private readonly intervalMs = 100,
  ) {
    this.current = { phase: firstPhase, rssMaxBytes: 0, heapUsedMaxBytes: 0, rssEndBytes: 0 };
    this.sample();
    this.timer = setInterval(() => {
      this.sample();
    }, intervalMs);
    this.timer.unref();
  }

  /** The largest RSS sampled so far. */
  peakRss(): number {
    return this.rssMax;
  }

  /** process.memoryUsage() when RSS was at its largest: what the peak was made of. */
  peakUsage(): NodeJS.MemoryUsage | undefined {
    return this.atPeak;
  }

  /** Takes one sample now. */
  sample(): void {
    const usage = process.memoryUsage();
    const { rss, heapUsed } = usage;
    this.samples++;
    if (rss > this.rssMax) this.atPeak = usage;
    this.rssMax = Math.max(this.rssMax, rss);
    this.heapMax = Math.max(this.heapMax, heapUsed);
    this.current.rssMaxBytes = Math.max(this.current.rssMaxBytes, rss);
    this.current.heapUsedMaxBytes = Math.max(this.current.heapUsedMaxBytes, heapUsed);
    this.current.rssEndBytes = rss;
  }

  /** Ends the current phase (with a last sample) and starts the next. */
  phase(name: string): void {
    this.sample();
    this.phases.push(this.current);
    this.current = { phase: name, rssMaxBytes: 0, heapUsedMaxBytes: 0, rssEndBytes: 0 };
    this.sample();
  }

  /** Stops the timer and reports. Idempotent. */
  stop(): MemoryReport {
    clearInterval(this.timer);
    this.sample();
    const phases = this.phases.includes(this.current)
      ? this.phases
      : [...this.phases, this.current];
    return {
      samples: this.samples,
      intervalMs: this.intervalMs,
      rssMaxBytes: this.rssMax,
      heapUsedMaxBytes: this.heapMax,
      rssFinalBytes: process.memoryUsage().rss,
      phases,
    };
  }
}
