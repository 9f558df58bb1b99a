/**
 * Readable log lines for a person at a terminal: `12:04:05 INFO  message key=value ...` from
 * the gateway's JSON lines. Production keeps JSON; the demo uses this on a TTY or when asked.
 */

const LEVELS: Readonly<Record<number, string>> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO ',
  40: 'WARN ',
  50: 'ERROR',
  60: 'FATAL',
};
/** Fields every line has, or that say nothing to a person reading the demo. */
const HIDDEN = new Set(['level', 'time', 'msg', 'service', 'pid', 'hostname', 'reqId']);

function value(v: unknown): string {
  if (typeof v === 'string') return /\s/.test(v) ? JSON.stringify(v) : v;
  return JSON.stringify(v);
}

/** One JSON log line as a readable line (the input as it is when it is not JSON). */
export function prettyLine(line: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const time =
    typeof entry.time === 'number' ? new Date(entry.time).toISOString().slice(11, 19) : '--:--:--';
  const level = LEVELS[typeof entry.level === 'number' ? entry.level : 30] ?? 'INFO ';
  const fields = Object.entries(entry)
    .filter(([k, v]) => !HIDDEN.has(k) && v !== undefined)
    .map(([k, v]) => `${k}=${value(v)}`);
  return `${time} ${level} ${typeof entry.msg === 'string' ? entry.msg : ''}${fields.length > 0 ? `  ${fields.join(' ')}` : ''}\n`;
}

/** A pino destination writing readable lines to `out`. */
export function prettyDestination(out: NodeJS.WritableStream): { write(chunk: string): void } {
  return { write: (chunk: string) => void out.write(prettyLine(chunk)) };
}
