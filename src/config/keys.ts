/**
 * Public keys from configuration text (PEM SPKI or a public JWK in JSON), and the one JWS
 * algorithm each kind of approver key signs with. The configuration checks approvers' keys with
 * these at load, and statement verification reads the same texts with them, so both agree on
 * what a key is. Keys are imported once: the texts come from the frozen configuration, so the
 * same few recur on every request.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';

/** The algorithms an approver may sign a statement with: EdDSA (Ed25519) and ES256 (P-256). */
export const APPROVAL_ALGORITHMS = ['EdDSA', 'ES256'] as const;

/** One of APPROVAL_ALGORITHMS. */
export type ApprovalAlgorithm = (typeof APPROVAL_ALGORITHMS)[number];

const imported = new Map<string, KeyObject>();

/** The public key in `text`; throws a TypeError (never echoing the text) when it is not one. */
export function importPublicKey(text: string): KeyObject {
  let key = imported.get(text);
  if (key === undefined) {
    const trimmed = text.trim();
    try {
      key = trimmed.startsWith('{')
        ? createPublicKey({ key: JSON.parse(trimmed) as Record<string, unknown>, format: 'jwk' })
        : createPublicKey(trimmed);
    } catch {
      // The parser's message may quote the key material: say only what was expected.
      throw new TypeError('not a public key (PEM SPKI or JWK)');
    }
    imported.set(text, key);
  }
  return key;
}

/**
 * The one algorithm a statement by `key` may carry (EdDSA for Ed25519, ES256 for P-256), or
 * undefined for a key no approval may be signed with. Pinning one algorithm per key keeps an
 * attacker's `alg` from ever reaching a key of another type.
 */
export function approvalAlgorithm(key: KeyObject): ApprovalAlgorithm | undefined {
  if (key.asymmetricKeyType === 'ed25519') return 'EdDSA';
  const curve = key.asymmetricKeyDetails?.namedCurve;
  if (key.asymmetricKeyType === 'ec' && curve === 'prime256v1') return 'ES256';
  return undefined;
}
