/**
 * Time as the queues see it. Injected so tests drive time by hand (a fake scheduler) instead
 * of sleeping, in the style of kubernetes-client/javascript's injectable delay.
 */

/** Clocks and one-shot timers. */
export interface Scheduler {
  /** Wall-clock milliseconds since the epoch (for timestamps; it may jump when NTP steps). */
  now(): number;
  /** Milliseconds on a clock that never jumps, from an arbitrary origin: for durations. */
  monotonic(): number;
  /** Runs `fn` once after `ms` milliseconds; the returned function cancels it (idempotent). */
  setTimer(ms: number, fn: () => void): () => void;
}

/** setTimeout's largest delay; longer ones would fire at once. */
const maxTimerMs = 2_147_483_647;

/** The wall clock, performance.now() and setTimeout; timers are unref'd so they never keep the process alive. */
export const realScheduler: Scheduler = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  setTimer(ms, fn) {
    const timer = setTimeout(fn, Math.min(Math.max(0, ms), maxTimerMs));
    timer.unref();
    return () => {
      clearTimeout(timer);
    };
  },
};

/**
 * The wait before retry number `retry` (1-based): base * 2^(retry-1), capped at `maxMs`, then
 * jittered into [cap/2, cap] (floored) so that keys failing together do not retry in lockstep.
 */
export function backoffDelay(
  retry: number,
  baseMs: number,
  maxMs: number,
  random: () => number,
): number {
  const exponent = Math.max(0, retry - 1);
  // 2^exponent overflows to Infinity for huge retry counts, which the cap absorbs.
  const ceiling = Math.min(maxMs, baseMs * 2 ** exponent);
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.floor(ceiling / 2 + (ceiling / 2) * r);
}
