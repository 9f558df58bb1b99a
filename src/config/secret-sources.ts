/**
 * Resolution of SecretSources to bytes. Problems name the field and, for files and variables,
 * the path or variable name, but never the bytes: those may be the secret.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { inspect } from 'node:util';
import type { SecretBytes } from './gateway-config.js';
import type { SecretSource } from './input.js';
import { problem } from './schema.js';

/** Where relative secret files and environment variables are looked up. */
export interface SecretContext {
  env: Readonly<Record<string, string | undefined>>;
  /** Relative `file` paths are taken from here (the config file's folder). */
  baseDir: string;
}

/**
 * Resolves one source to its exact bytes, or appends a problem for `pointer` and returns
 * undefined. An empty secret is a problem: an empty key authenticates nothing.
 */
export function resolveSecret(
  source: SecretSource,
  pointer: string,
  context: SecretContext,
  problems: string[],
): SecretBytes | undefined {
  const bytes = readSource(source, pointer, context, problems);
  if (bytes === undefined) return undefined;
  if (bytes.length === 0) {
    problems.push(problem(pointer, 'resolves to an empty secret'));
    return undefined;
  }
  return redacted(bytes);
}

function readSource(
  source: SecretSource,
  pointer: string,
  context: SecretContext,
  problems: string[],
): Buffer | undefined {
  if ('value' in source) return Buffer.from(source.value, 'utf8');
  if ('env' in source) {
    const text = context.env[source.env];
    if (text === undefined) {
      problems.push(problem(`${pointer}/env`, `environment variable "${source.env}" is not set`));
      return undefined;
    }
    return Buffer.from(text, 'utf8');
  }
  const path = isAbsolute(source.file) ? source.file : resolve(context.baseDir, source.file);
  try {
    // Exact bytes: a Kubernetes Secret file has no trailing newline to strip, and a key
    // that legitimately ends in whitespace must stay intact.
    return readFileSync(path);
  } catch (error) {
    problems.push(problem(`${pointer}/file`, `cannot read "${path}" (${errorCode(error)})`));
    return undefined;
  }
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : 'read error';
}

/** The prefix of a Standard Webhooks secret: `whsec_<base64 of the key bytes>`. */
export const STANDARD_WEBHOOKS_PREFIX = 'whsec_';

// Standard base64 (the alphabet the Standard Webhooks libraries decode), padded to whole quads.
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/;

/**
 * A webhook signing secret's HMAC key, as the Standard Webhooks specification reads secrets: a
 * `whsec_` secret is the base64-decoded bytes after the prefix (surrounding whitespace, such as
 * a file's trailing newline, is no part of that text); any other secret is its bytes as they are
 * (a `value` or `env` is UTF-8). A `whsec_` secret that is not valid base64 is a problem for
 * `pointer`, which never quotes it.
 */
export function webhookSigningKey(
  bytes: SecretBytes,
  pointer: string,
  problems: string[],
): SecretBytes | undefined {
  const key = standardWebhooksKey(bytes);
  if (key === undefined) problems.push(problem(pointer, WHSEC_NOT_BASE64));
  return key;
}

/** Why a `whsec_` secret was refused; quotes nothing of the secret. */
export const WHSEC_NOT_BASE64 = `starts with "${STANDARD_WEBHOOKS_PREFIX}" but what follows is not a key in base64 (standard alphabet, padded); a secret without the prefix is used as its bytes`;

/**
 * The HMAC key bytes of a Standard Webhooks secret (the rule of webhookSigningKey), redacted;
 * undefined when it starts with `whsec_` but is not base64. Exported for the notifications'
 * Secrets (src/notify), so both read a `whsec_` secret the same way.
 */
export function standardWebhooksKey(bytes: Buffer): SecretBytes | undefined {
  const text = bytes.toString('utf8').trim();
  if (!text.startsWith(STANDARD_WEBHOOKS_PREFIX)) return redacted(bytes);
  const encoded = text.slice(STANDARD_WEBHOOKS_PREFIX.length);
  if (!BASE64.test(encoded)) return undefined;
  return redacted(Buffer.from(encoded, 'base64'));
}

const REDACTED = '[secret]';

/**
 * Makes a secret Buffer print as "[secret]" through JSON.stringify (and so pino) and
 * util.inspect (console.log), so that logging a whole config cannot leak it. Its bytes
 * are untouched for crypto.
 */
export function redacted(bytes: Buffer): SecretBytes {
  // Idempotent: the properties cannot be defined twice, and a key may pass here again.
  if (Object.hasOwn(bytes, 'toJSON')) return bytes;
  Object.defineProperty(bytes, 'toJSON', { value: () => REDACTED });
  Object.defineProperty(bytes, inspect.custom, { value: () => REDACTED });
  return bytes;
}
