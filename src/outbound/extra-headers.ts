/**
 * The extra request headers of a PromotionAlert's Secret (its `headers` key, a YAML or JSON
 * map, as a Flux Provider's): checked when the Secret is read, and filtered again when a request
 * is built, so that none can override what the gateway sets (the Standard Webhooks headers,
 * content-type, framing) or split a request. Values are never quoted: `Authorization` is the
 * usual one.
 */
import { parse } from 'yaml';

/** A checked value, or why it cannot be used (secret-free). */
export type Decoded<T> = { ok: true; value: T } | { ok: false; problem: string };

/** Headers the gateway sets or the HTTP client frames: a Secret cannot set or replace them. */
export const RESERVED_HEADERS: ReadonlySet<string> = new Set([
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
  'content-type',
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'host',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
]);

/** Limits that keep a mistaken Secret from making every delivery huge. */
export const MAX_EXTRA_HEADERS = 32;
const MAX_HEADER_BYTES = 8192;
const MAX_NAME_LENGTH = 64;

// RFC 9110 5.1 token; 5.5 field-value without controls (tab allowed), Latin-1 as fetch takes it.
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** True for a header a Secret may add: a token name, not reserved, a value without CR/LF/NUL. */
export function isAllowedExtraHeader(name: string, value: string): boolean {
  return TOKEN.test(name) && !RESERVED_HEADERS.has(name.toLowerCase()) && FIELD_VALUE.test(value);
}

/**
 * The Secret's `headers` text parsed (YAML 1.2, so JSON too) into lower-case names and string
 * values (numbers and booleans are written as text, as Flux reads them); every problem found,
 * joined, without quoting a value or a name that is not a valid token.
 */
export function parseExtraHeaders(text: string): Decoded<Record<string, string>> {
  let map: unknown;
  try {
    map = parse(text);
  } catch {
    return { ok: false, problem: 'headers is not valid YAML or JSON' };
  }
  if (map === null || map === undefined) return { ok: true, value: {} };
  if (typeof map !== 'object' || Array.isArray(map)) {
    return { ok: false, problem: 'headers is not a map of header names to values' };
  }
  return checkExtraHeaders(map as Record<string, unknown>);
}

/** The check of parseExtraHeaders on a map already parsed. */
export function checkExtraHeaders(
  map: Readonly<Record<string, unknown>>,
): Decoded<Record<string, string>> {
  const problems: string[] = [];
  const headers: Record<string, string> = {};
  const entries = Object.entries(map);
  if (entries.length > MAX_EXTRA_HEADERS) {
    problems.push(
      `headers has ${entries.length} entries; at most ${MAX_EXTRA_HEADERS} are allowed`,
    );
  }
  let bytes = 0;
  for (const [name, raw] of entries) {
    const value = textOf(raw);
    const problem = headerProblem(name, value, headers);
    if (problem !== undefined || value === undefined) {
      problems.push(problem ?? `headers "${name}" is not a text value`);
      continue;
    }
    headers[name.toLowerCase()] = value;
    bytes += name.length + value.length;
  }
  if (bytes > MAX_HEADER_BYTES) problems.push(`headers total more than ${MAX_HEADER_BYTES} bytes`);
  return problems.length === 0
    ? { ok: true, value: headers }
    : { ok: false, problem: problems.join('; ') };
}

// Numbers and booleans are written as text, as Flux reads a Provider's headers.
function textOf(raw: unknown): string | undefined {
  if (typeof raw === 'string') return raw;
  return typeof raw === 'number' || typeof raw === 'boolean' ? String(raw) : undefined;
}

function headerProblem(
  name: string,
  value: string | undefined,
  seen: Readonly<Record<string, string>>,
): string | undefined {
  if (!TOKEN.test(name) || name.length > MAX_NAME_LENGTH) {
    return `headers has a name that is not an HTTP header name (a token of at most ${MAX_NAME_LENGTH} characters)`;
  }
  const lower = name.toLowerCase();
  if (RESERVED_HEADERS.has(lower)) return `headers cannot set "${name}": the gateway sets it`;
  if (Object.hasOwn(seen, lower))
    return `headers sets "${name}" twice (names are case-insensitive)`;
  if (value !== undefined && !FIELD_VALUE.test(value)) {
    return `headers "${name}" has a value with a line break or control character`;
  }
  return undefined;
}

/**
 * The extra headers a request may carry: those of `headers` that isAllowedExtraHeader accepts,
 * names in lower case, so that the gateway's own (set after them) always win.
 */
export function allowedExtraHeaders(
  headers: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (isAllowedExtraHeader(name, value)) out[name.toLowerCase()] = value;
  }
  return out;
}
