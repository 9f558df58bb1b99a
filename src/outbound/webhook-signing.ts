/**
 * Standard Webhooks signing (https://www.standardwebhooks.com/), shared by the notifications'
 * deliveries and the webhook promotion strategy: the content signed is `id.timestamp.body`,
 * `v1` is its base64 HMAC-SHA256, `v1a` its base64 ed25519 signature, and the
 * `webhook-signature` header lists every signature made, space-separated.
 */
import { createHmac, sign, type KeyObject } from 'node:crypto';

/** The keys a delivery may be signed with; either, both or neither. */
export interface SigningCredentials {
  /** HMAC key bytes (a `whsec_` secret already decoded, see notify/alert-secret-keys.ts). */
  signingSecret?: Buffer;
  /** An ed25519 private key, for the asymmetric `v1a` signature. */
  signingKey?: KeyObject;
}

/** The Standard Webhooks header names, lower case as fetch sends them. */
export const WEBHOOK_ID = 'webhook-id';
/** Seconds since the epoch of this attempt (not of the event). */
export const WEBHOOK_TIMESTAMP = 'webhook-timestamp';
/** The space-separated list of `v1,<base64>` and `v1a,<base64>` signatures. */
export const WEBHOOK_SIGNATURE = 'webhook-signature';

/** What is signed: `id.timestamp.body`, byte for byte the body that is sent. */
export function signedContent(id: string, timestamp: number, body: string): string {
  return `${id}.${timestamp}.${body}`;
}

/**
 * Standard Webhooks v1 signature: base64 HMAC-SHA256 over `id.timestamp.body`, keyed with the
 * key bytes (a `whsec_` secret is decoded first, see config/secret-sources.ts).
 */
export function webhookSignature(
  secret: Buffer,
  id: string,
  timestamp: number,
  body: string,
): string {
  const mac = createHmac('sha256', secret).update(signedContent(id, timestamp, body));
  return `v1,${mac.digest('base64')}`;
}

/**
 * Standard Webhooks v1a signature: base64 ed25519 signature of `id.timestamp.body`. Undefined
 * for a key that is not an ed25519 private key (notify/alert-secret-keys.ts refuses one at load).
 */
export function webhookSignatureV1a(
  key: KeyObject,
  id: string,
  timestamp: number,
  body: string,
): string | undefined {
  if (!isSigningKey(key)) return undefined;
  // ed25519 hashes internally: the algorithm argument must be null.
  const signature = sign(null, Buffer.from(signedContent(id, timestamp, body), 'utf8'), key);
  return `v1a,${signature.toString('base64')}`;
}

/**
 * The `webhook-signature` value for these credentials: `v1,…` with a non-empty secret, then
 * `v1a,…` with a key, space-separated; undefined when neither signs.
 */
export function webhookSignatures(
  credentials: SigningCredentials,
  id: string,
  timestamp: number,
  body: string,
): string | undefined {
  const { signingSecret, signingKey } = credentials;
  const signatures: string[] = [];
  if (signingSecret !== undefined && signingSecret.length > 0) {
    signatures.push(webhookSignature(signingSecret, id, timestamp, body));
  }
  const v1a =
    signingKey === undefined ? undefined : webhookSignatureV1a(signingKey, id, timestamp, body);
  if (v1a !== undefined) signatures.push(v1a);
  return signatures.length === 0 ? undefined : signatures.join(' ');
}

/** True for a key that makes `v1a` signatures: an ed25519 private key. */
export function isSigningKey(key: KeyObject): boolean {
  return key.type === 'private' && key.asymmetricKeyType === 'ed25519';
}

/** True when these credentials produce at least one signature. */
export function signs(credentials: SigningCredentials): boolean {
  const { signingSecret, signingKey } = credentials;
  return (
    (signingSecret !== undefined && signingSecret.length > 0) ||
    (signingKey !== undefined && isSigningKey(signingKey))
  );
}

/**
 * The three Standard Webhooks headers for one attempt at `nowMs`: `webhook-id`,
 * `webhook-timestamp` (whole seconds) and, when the credentials sign, `webhook-signature`.
 * `id` must not contain `.` (the specification's rule: it would make the signed content
 * ambiguous); ids here are `evt_`/`msg_` and base64url.
 */
export function standardWebhookHeaders(
  id: string,
  nowMs: number,
  body: string,
  credentials: SigningCredentials,
): Record<string, string> {
  const timestamp = Math.floor(nowMs / 1000);
  const headers: Record<string, string> = {
    [WEBHOOK_ID]: id,
    [WEBHOOK_TIMESTAMP]: String(timestamp),
  };
  const signature = webhookSignatures(credentials, id, timestamp, body);
  if (signature !== undefined) headers[WEBHOOK_SIGNATURE] = signature;
  return headers;
}
