/**
 * Server-Sent Events framing (the WHATWG HTML standard's `text/event-stream`): an event is
 * `event:`, `id:` and `data:` lines ended by a blank line; data with line breaks becomes one
 * `data:` line per line, which the browser joins again with `\n`. Field values never hold a
 * line break (one would start a new field), so names and ids are cleaned. Pure.
 */

/** One event. */
export interface SseEvent {
  /** The event type (the page listens by it); default `message`. */
  event?: string;
  /** The last event id the browser sends back as `Last-Event-ID` when it reconnects. */
  id?: string;
  data: string;
}

const LINE_BREAK = /\r\n|\r|\n/;

/** A field value without line breaks or NUL (which the browser would take as the end of an id). */
function field(value: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what is removed
  return value.replace(/[\r\n\u0000]/g, '');
}

/** The wire text of `event`. */
export function sseFrame(event: SseEvent): string {
  let out = '';
  if (event.event !== undefined) out += `event: ${field(event.event)}\n`;
  if (event.id !== undefined) out += `id: ${field(event.id)}\n`;
  for (const line of event.data.split(LINE_BREAK)) out += `data: ${line}\n`;
  return `${out}\n`;
}

/** How long the browser waits before reconnecting after the stream drops (`retry:`). */
export function sseRetry(ms: number): string {
  return `retry: ${String(Math.max(0, Math.floor(ms)))}\n\n`;
}

/** A comment line: ignored by the browser, it keeps proxies from closing an idle stream. */
export function sseComment(text: string): string {
  return `: ${field(text)}\n\n`;
}
