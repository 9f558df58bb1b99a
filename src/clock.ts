/**
 * Time as the gateway sees it: the wall clock, a monotonic clock and one-shot timers. Injected
 * everywhere time matters (queues, resync, leader election, promotion records) so tests drive
 * time by hand instead of sleeping, in the style of kubernetes-client/javascript's injectable
 * delay.
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
