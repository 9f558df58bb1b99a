// @ts-check
/**
 * The live connection every page of promotion-gateway's view shares: a Server-Sent Events
 * stream from the page's own origin (the CSP allows nothing else). The browser's EventSource
 * reconnects by itself after a network error and sends the last event id, so the server sends
 * only what changed since; when the server refuses or the stream goes silent past two missed
 * pings, this opens a new one after a jittered, growing pause, taking up where the page was.
 * The indicator (data-testid="live") shows data-state="open" or "reconnecting".
 */

/** No event (not even a ping, every 15 s) for this long: the stream is dead. */
const SILENCE_MS = 45_000;

/**
 * Follows `path`: each event type in `handlers` gets its parsed JSON data; `since` is the
 * change number the page was rendered at.
 * @param {string} path
 * @param {string} since
 * @param {Record<string, (data: any) => void>} handlers
 */
export function follow(path, since, handlers) {
  const indicator = document.querySelector('[data-testid="live"]');
  let last = since;
  /** @type {EventSource | undefined} */
  let source;
  let attempts = 0;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let silence;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let retry;

  /** @param {'open' | 'reconnecting'} state */
  const show = (state) => {
    if (!(indicator instanceof HTMLElement)) return;
    indicator.dataset.state = state;
    indicator.textContent = state === 'open' ? 'live' : 'reconnecting…';
  };

  const listen = () => {
    clearTimeout(silence);
    silence = setTimeout(() => {
      source?.close();
      again();
    }, SILENCE_MS);
  };

  const again = () => {
    show('reconnecting');
    clearTimeout(retry);
    attempts += 1;
    const base = Math.min(30_000, 1_000 * 2 ** Math.min(attempts, 5));
    retry = setTimeout(open, base * (0.5 + Math.random() / 2));
  };

  const open = () => {
    const joiner = path.includes('?') ? '&' : '?';
    const stream = new EventSource(`${path}${joiner}since=${encodeURIComponent(last)}`);
    source = stream;
    stream.addEventListener('open', () => {
      attempts = 0;
      show('open');
      listen();
    });
    stream.addEventListener('error', () => {
      show('reconnecting');
      // CLOSED: the server answered with an error; the browser gives up, this does not.
      if (stream.readyState === EventSource.CLOSED) again();
    });
    stream.addEventListener('ping', listen);
    for (const [type, handle] of Object.entries(handlers)) {
      stream.addEventListener(type, (event) => {
        listen();
        handle(JSON.parse(event.data));
        if (event.lastEventId !== '') last = event.lastEventId;
      });
    }
  };

  open();
  window.addEventListener('pagehide', () => source?.close());
}

/**
 * Runs `work` in the next animation frame, once however often it is asked for before then, so
 * that a burst of frames costs one layout.
 * @param {() => void} work
 */
export function batched(work) {
  let queued = false;
  return () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      work();
    });
  };
}

/**
 * Tells tests and benchmarks that an update was applied: `ui:applied` on document, with how
 * many items and how long it took (ms).
 * @param {number} items
 * @param {number} ms
 */
export function applied(items, ms) {
  document.dispatchEvent(new CustomEvent('ui:applied', { detail: { items, ms } }));
}
