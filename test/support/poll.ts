/**
 * A bounded poll for conditions reached asynchronously (a socket closed, a stream answered, a
 * controller acted): tests wait for what they expect, never for a fixed time.
 */

/**
 * Polls `check` until it stops throwing (or returning false) and returns its last value; after
 * `timeoutMs` it throws the last failure. For conditions reached asynchronously, never timing.
 */
export async function eventually<T>(
  check: () => T | Promise<T>,
  { timeoutMs = 10_000, intervalMs = 25 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const value = await check();
      if (value !== false) return value;
      throw new Error('condition still false');
    } catch (err) {
      if (Date.now() >= deadline) throw err;
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
