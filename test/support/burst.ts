/**
 * What a burst of identical events may cost in reads of their object, given how long it took to
 * arrive: one read at its first event, then one per spacing interval while more kept arriving
 * (src/wiring/loop.ts). A burst that arrives within one interval costs at most two; on a busy
 * machine a burst can take longer to arrive, and each further interval it spans may add one.
 */
import { HINT_READ_SPACING_MS } from '../../src/wiring/loop.js';

/** The most reads a burst may cost when sending it and reading every answer took `spanMs`. */
export function burstReadBound(spanMs: number): number {
  return 2 + Math.floor(spanMs / HINT_READ_SPACING_MS);
}

/** Runs `send` (the whole burst, answers read) and resolves with its result and its span. */
export async function timedBurst<T>(
  send: () => Promise<T>,
): Promise<{ result: T; spanMs: number }> {
  const started = performance.now();
  const result = await send();
  return { result, spanMs: performance.now() - started };
}
