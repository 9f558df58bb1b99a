/**
 * HMAC request signatures as Flux's generic-hmac Provider sends them: `X-Signature:
 * <alg>=<hex>` over the exact request bytes. Verification does the same work whether the
 * header is missing, malformed, of the wrong length or simply wrong, and whether the cluster
 * is unknown or has one key, so timing reveals nothing about which case applied. A cluster in
 * the middle of a key rotation (two keys) costs one HMAC more: that tells a caller only that a
 * rotation is under way, and saves every other request an HMAC (a tenth of the ingress's CPU).
 */
import { createHmac, createSecretKey, randomBytes, timingSafeEqual } from 'node:crypto';
import type { KeyObject } from 'node:crypto';

/** Digest algorithms accepted in `X-Signature` (Flux sends sha256). */
export type HmacAlgorithm = 'sha256' | 'sha384' | 'sha512';

const DIGEST_BYTES: Readonly<Record<HmacAlgorithm, number>> = {
  sha256: 32,
  sha384: 48,
  sha512: 64,
};

/** Every verification computes at least this many HMACs (an unknown cluster costs one too). */
const MIN_KEY_ATTEMPTS = 1;

// Stands in for absent keys so unknown clusters and pipelines cost the same as known ones.
// Random per process: no caller can know it, so a match against it is impossible in practice,
// and a match is discarded anyway.
const DUMMY_KEY = createSecretKey(randomBytes(32));

// createHmac with a raw Buffer key re-imports the key on every call, which costs about five
// times the MAC itself on Node 24 (15 µs against 3 µs). Keys come from the frozen config or a
// cached Secret read, so the same Buffer objects recur: import each once. The bytes imported
// are kept and compared (a few dozen bytes) so that a Buffer written over since, by its owner
// or by a test, never verifies with what it held before.
const importedKeys = new WeakMap<Buffer, { bytes: Buffer; key: KeyObject }>();

function keyObjectOf(key: Buffer): KeyObject {
  const known = importedKeys.get(key);
  if (known?.bytes.equals(key) === true) return known.key;
  const imported = { bytes: Buffer.from(key), key: createSecretKey(key) };
  importedKeys.set(key, imported);
  return imported.key;
}

const SIGNATURE_PATTERN = /^(sha256|sha384|sha512)=([0-9a-f]+)$/i;

/** A syntactically valid signature header: the algorithm and the claimed digest bytes. */
export interface ParsedSignature {
  algorithm: HmacAlgorithm;
  digest: Buffer;
}

/** Parses `<alg>=<hex>`; undefined when absent or malformed (odd hex length included). */
export function parseSignature(header: string | undefined): ParsedSignature | undefined {
  if (header === undefined) return undefined;
  const match = SIGNATURE_PATTERN.exec(header.trim());
  const algorithm = match?.[1]?.toLowerCase() as HmacAlgorithm | undefined;
  const hex = match?.[2];
  if (algorithm === undefined || hex === undefined || hex.length % 2 !== 0) return undefined;
  return { algorithm, digest: Buffer.from(hex, 'hex') };
}

/** The header value Flux would send for `body` signed with `key`: `<alg>=<lowercase hex>`. */
export function signBody(body: Buffer, key: Buffer, algorithm: HmacAlgorithm = 'sha256'): string {
  return `${algorithm}=${createHmac(algorithm, key).update(body).digest('hex')}`;
}

/** What checkSignature found: a valid signature, or which way it failed. */
export type SignatureCheck = 'valid' | 'missing' | 'malformed' | 'mismatch';

/**
 * Whether `header` is a valid signature of `body` under any of `keys`, and if not, whether the
 * header was missing, malformed (not `<alg>=<hex>` of the algorithm's length) or simply wrong.
 * The answer is told apart only after all the work is done: it depends on the header alone,
 * which the caller wrote, never on the keys.
 */
export function checkSignature(
  body: Buffer,
  header: string | undefined,
  keys: readonly Buffer[],
): SignatureCheck {
  const parsed = parseSignature(header);
  if (macMatches(body, parsed, keys)) return 'valid';
  if (header === undefined) return 'missing';
  return parsed?.digest.length === DIGEST_BYTES[parsed?.algorithm ?? 'sha256']
    ? 'mismatch'
    : 'malformed';
}

/**
 * True when `header` is a valid signature of `body` under any of `keys`. Every key is tried
 * (no early exit) with constant-time comparison; empty keys never match.
 */
export function verifySignature(
  body: Buffer,
  header: string | undefined,
  keys: readonly Buffer[],
): boolean {
  return macMatches(body, parseSignature(header), keys);
}

function macMatches(
  body: Buffer,
  parsed: ParsedSignature | undefined,
  keys: readonly Buffer[],
): boolean {
  const algorithm = parsed?.algorithm ?? 'sha256';
  const length = DIGEST_BYTES[algorithm];
  // Compare against a fixed-length copy so a short or long digest costs the same as a wrong one.
  const claimed = Buffer.alloc(length);
  parsed?.digest.copy(claimed, 0, 0, length);
  let wellFormed = parsed?.digest.length === length ? 1 : 0;

  let matched = 0;
  const attempts = Math.max(keys.length, MIN_KEY_ATTEMPTS);
  for (let i = 0; i < attempts; i++) {
    const key = keys[i];
    const usable = key !== undefined && key.length > 0;
    const mac = createHmac(algorithm, usable ? keyObjectOf(key) : DUMMY_KEY)
      .update(body)
      .digest();
    // Bitwise accumulation: no branch depends on which key (if any) matched.
    matched |= (timingSafeEqual(mac, claimed) ? 1 : 0) & (usable ? 1 : 0);
  }
  wellFormed &= matched;
  return wellFormed === 1;
}
