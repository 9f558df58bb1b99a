/**
 * Verification keys from configuration text (PEM SPKI or a public JWK in JSON), imported once:
 * the texts come from the frozen configuration, so the same few recur on every request.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';

const imported = new Map<string, KeyObject>();

/** The public key in `text`; throws (without echoing the text) when it is not one. */
export function importStaticKey(text: string): KeyObject {
  let key = imported.get(text);
  if (key === undefined) {
    const trimmed = text.trim();
    try {
      key = trimmed.startsWith('{')
        ? createPublicKey({ key: JSON.parse(trimmed) as Record<string, unknown>, format: 'jwk' })
        : createPublicKey(trimmed);
    } catch {
      throw new TypeError('not a public key (PEM SPKI or JWK)');
    }
    imported.set(text, key);
  }
  return key;
}
