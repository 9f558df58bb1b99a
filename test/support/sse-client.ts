/**
 * A Server-Sent Events reader for tests: fetch (so a test can send a bearer token, which a
 * browser's EventSource cannot) and parse the stream's events as they arrive, with a bounded
 * wait for the next one that matches.
 */

/** One parsed event. */
export interface SseMessage {
  event: string;
  id: string | undefined;
  data: string;
  /** When it was parsed (Date.now()). */
  at: number;
}

/** An open stream. */
export interface SseReader {
  status: number;
  headers: Headers;
  /** Every event parsed so far. */
  messages: SseMessage[];
  /** The `retry:` values seen. */
  retries: number[];
  /** Resolves with the first event from index `from` (default 0) on that matches `match`. */
  next(match?: (m: SseMessage) => boolean, timeoutMs?: number, from?: number): Promise<SseMessage>;
  close(): void;
}

function parse(block: string, into: SseReader): void {
  let event = 'message';
  let id: string | undefined;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':') || line === '') continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'id') id = value;
    else if (field === 'data') data.push(value);
    else if (field === 'retry') into.retries.push(Number(value));
  }
  if (data.length > 0) into.messages.push({ event, id, data: data.join('\n'), at: Date.now() });
}

/** Opens `url` as an event stream with `headers`. */
export async function openSse(
  url: string,
  headers: Record<string, string> = {},
): Promise<SseReader> {
  const controller = new AbortController();
  const response = await fetch(url, {
    headers: { accept: 'text/event-stream', ...headers },
    signal: controller.signal,
  });
  const waiters = new Set<() => void>();
  const reader: SseReader = {
    status: response.status,
    headers: response.headers,
    messages: [],
    retries: [],
    next: (match = () => true, timeoutMs = 5_000, from = 0) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const found = reader.messages.slice(from).find(match);
          if (found === undefined) return false;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching event within ${String(timeoutMs)} ms`));
        }, timeoutMs);
        if (!check()) waiters.add(check);
      }),
    close: () => {
      controller.abort();
    },
  };
  if (response.status !== 200 || response.body === null) return reader;
  const decoder = new TextDecoder();
  const stream = response.body.getReader();
  let buffer = '';
  void (async () => {
    try {
      for (;;) {
        const { value, done } = (await stream.read()) as { value?: Uint8Array; done: boolean };
        if (done) return;
        buffer += decoder.decode(value, { stream: true });
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          parse(buffer.slice(0, end), reader);
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf('\n\n');
        }
        for (const waiter of [...waiters]) waiter();
      }
    } catch {
      // Aborted by close(), or the server ended the stream.
    }
  })();
  return reader;
}
