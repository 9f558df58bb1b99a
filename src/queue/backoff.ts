/**
 * Jittered exponential backoff for queue retries.
 */

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
