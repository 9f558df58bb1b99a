/**
 * The keys of a PromotionAlert's Secret decoded into what a delivery uses (docs/notifications.md,
 * "The PromotionAlert resource"): `address` an http(s) URL, `signingSecret` a Standard Webhooks
 * `whsec_` secret or raw bytes, `signingKey` an ed25519 private key in PKCS#8 PEM (`headers` is
 * outbound/extra-headers.ts). A problem names the key, never a value; secret bytes print as "[secret]".
 * alert-credentials.ts reads the Secret and caches what these make of it.
 */
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { redacted, webhookSigningKey } from '../config/secret-sources.js';
import { isSigningKey } from '../outbound/webhook-signing.js';

/** A key decoded, or a one-line problem that quotes no value. */
export type Decoded<T> = { ok: true; value: T } | { ok: false; problem: string };

/** The Secret's `address`, trimmed (a file's newline is no part of it): an http(s) URL. */
export function decodeAddress(bytes: Buffer): Decoded<string> {
  const url = bytes.toString('utf8').trim();
  if (!/^https?:\/\//i.test(url) || !URL.canParse(url))
    return { ok: false, problem: 'address is not an http(s) URL' };
  return { ok: true, value: url };
}

/**
 * The HMAC key of `signingSecret`, as config/secret-sources.ts webhookSigningKey reads secrets: a
 * `whsec_` secret is the base64 after the prefix, any other its bytes as they are.
 */
export function decodeSigningSecret(bytes: Buffer): Decoded<Buffer> {
  if (bytes.length === 0) return { ok: false, problem: 'signingSecret is empty' };
  const key = webhookSigningKey(Buffer.from(bytes), 'signingSecret', []);
  if (key === undefined || key.length === 0) {
    return {
      ok: false,
      problem: 'signingSecret starts with "whsec_" but what follows is not a key in base64',
    };
  }
  return { ok: true, value: redacted(key) };
}

/**
 * The ed25519 private key of `signingKey`: unencrypted PKCS#8 PEM (`BEGIN PRIVATE KEY`); any
 * other format or key type is a problem (crypto's own reason is dropped: it could quote).
 */
export function decodeSigningKey(bytes: Buffer): Decoded<KeyObject> {
  const problem = {
    ok: false,
    problem: 'signingKey is not an ed25519 private key in PKCS#8 PEM (BEGIN PRIVATE KEY)',
  } as const;
  const text = bytes.toString('utf8');
  if (!text.includes('-----BEGIN PRIVATE KEY-----')) return problem;
  try {
    const key = createPrivateKey({ key: text, format: 'pem' });
    return isSigningKey(key) ? { ok: true, value: key } : problem;
  } catch {
    return problem;
  }
}
