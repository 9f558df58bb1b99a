/**
 * The headers an HTTP check sends from its Secret, read as Flux's notification Provider reads
 * its Secret: `token` becomes `Authorization: Bearer <token>`, and `headers` is a YAML map of
 * header names to values. Read on every run (a rotated token counts at once), never cached,
 * logged or quoted: messages name the Secret and the key, never a value.
 */
import { parse } from 'yaml';
import type { SecretKeyReader } from '../auth/legacy-keys.js';

/** The headers to send, and every secret value in them (for redacting answers that echo them). */
export interface SecretHeaders {
  headers: Record<string, string>;
  secrets: string[];
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// eslint-disable-next-line no-control-regex -- control characters are what is refused
const BAD_VALUE = /[\u0000-\u0008\u000a-\u001f\u007f]/;
/** Headers fetch sets itself, or refuses: a Secret cannot set them. */
const RESERVED = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'keep-alive',
  'upgrade',
  'expect',
  'te',
  'trailer',
]);

/** The Secret's headers, or a sentence saying what is wrong with it (no value in it). */
export async function secretHeaders(
  readSecret: SecretKeyReader,
  namespace: string,
  name: string,
): Promise<SecretHeaders | string> {
  const where = `Secret ${namespace}/${name}`;
  let token: Buffer | undefined;
  let yaml: Buffer | undefined;
  try {
    [token, yaml] = await Promise.all([
      readSecret(namespace, name, 'token'),
      readSecret(namespace, name, 'headers'),
    ]);
  } catch {
    return `${where} could not be read from the management cluster`;
  }
  if (token === undefined && yaml === undefined)
    return `${where} has neither a "token" nor a "headers" key (or does not exist)`;
  const headers: Record<string, string> = {};
  if (yaml !== undefined) {
    const parsed = headerMap(yaml.toString('utf8'));
    if (typeof parsed === 'string') return `${where}: its "headers" ${parsed}`;
    Object.assign(headers, parsed);
  }
  if (token !== undefined) {
    const value = token.toString('utf8').trim();
    if (value === '' || BAD_VALUE.test(value))
      return `${where}: its "token" is empty or holds line breaks`;
    headers.authorization = `Bearer ${value}`;
  }
  return { headers, secrets: Object.values(headers).flatMap(secretParts) };
}

/** A YAML map of header names to strings (numbers and booleans as written), or what is wrong. */
function headerMap(text: string): Record<string, string> | string {
  let parsed: unknown;
  try {
    parsed = parse(text, { maxAliasCount: 0 });
  } catch {
    // The parser's message may quote the value: say only that it is not YAML.
    return 'is not YAML';
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return 'must be a YAML map of header names to values';
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(parsed)) {
    const name = key.toLowerCase();
    if (!HEADER_NAME.test(key) || RESERVED.has(name))
      return `names a header that cannot be sent (${JSON.stringify(key.slice(0, 40))})`;
    if (!['string', 'number', 'boolean'].includes(typeof value))
      return `gives ${key} a value that is not text`;
    const text = String(value).trim();
    if (BAD_VALUE.test(text)) return `gives ${key} a value with line breaks`;
    out[name] = text;
  }
  return out;
}

/** What must never be quoted: the whole value, and a Bearer or Basic value's credential. */
function secretParts(value: string): string[] {
  const credential = /^(?:bearer|basic|token)\s+(.+)$/i.exec(value)?.[1];
  return [value, ...(credential === undefined ? [] : [credential])].filter((v) => v.length >= 4);
}
