/**
 * Compact JWTs that name a real key (`kid`) but are signed with every JWS algorithm jose
 * implements, carry an algorithm no key can sign with, or are malformed: what anyone who knows
 * an approver's name or an issuer's key ids can send. Verification must refuse each one, and
 * never throw: a thrown error is a 500 where every credential failure is a 401.
 */
import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import type { OidcIssuerInput } from '../../src/config/input.js';

/** Every algorithm the configuration lets a CI issuer or the API's JWTs use. */
export const CONFIGURABLE_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
] as const satisfies NonNullable<OidcIssuerInput['algorithms']>;

/** Every JWS algorithm jose 6 signs with on Node 24 (ES256K is not one: see UNSIGNABLE). */
export const JOSE_ALGORITHMS = [
  'HS256',
  'HS384',
  'HS512',
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
  'ML-DSA-44',
  'ML-DSA-65',
  'ML-DSA-87',
] as const;

/**
 * `alg` values no key signs with: unsupported (ES256K), none in every case, near misses of real
 * names, names of Object.prototype members, junk, and values that are not strings at all.
 */
export const UNSIGNABLE_ALGORITHMS: readonly unknown[] = [
  'ES256K',
  'none',
  'None',
  'NONE',
  '',
  'eddsa',
  'es256',
  'EdDSA ',
  ' ES256',
  'ES256\u0000',
  'ＥＳ256',
  'RS1',
  'HS0',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'x'.repeat(1000),
  42,
  null,
  true,
  ['ES256'],
  { alg: 'ES256' },
];

/** A private (or, for HS*, secret) key per algorithm of JOSE_ALGORITHMS. */
export type SigningKeys = ReadonlyMap<string, CryptoKey | Uint8Array>;

/**
 * One fresh key per algorithm this Node can sign with (ML-DSA needs Node 24); made once per test
 * file (RSA keys take a while). An algorithm it cannot sign with is sent as an unsignable `alg`.
 */
export async function signingKeys(): Promise<SigningKeys> {
  const entries = await Promise.all(
    JOSE_ALGORITHMS.map(async (alg): Promise<[string, CryptoKey | Uint8Array][]> => {
      if (alg.startsWith('HS')) return [[alg, new Uint8Array(randomBytes(64))]];
      try {
        return [[alg, (await generateKeyPair(alg)).privateKey]];
      } catch (error) {
        if (error instanceof Error && error.name === 'NotSupportedError') return [];
        throw error;
      }
    }),
  );
  return new Map(entries.flat());
}

const b64 = (value: unknown): string =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** `header.payload.signature` from parts that need not make sense. */
function compact(header: unknown, payload: unknown, signature = randomBytes(64)): string {
  return `${b64(header)}.${b64(payload)}.${signature.toString('base64url')}`;
}

/**
 * Tokens with `header` (a `kid`, maybe a `typ`) and `payload` (claims that would be accepted
 * from the right key), each under a label saying what is wrong with it: signed with every
 * algorithm of `keys`, carrying each unsignable `alg`, or malformed.
 */
export async function crossAlgTokens(
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  keys: SigningKeys,
): Promise<[string, string][]> {
  const signed = await Promise.all(
    [...keys].map(async ([alg, key]): Promise<[string, string]> => [
      `signed with ${alg}`,
      await new SignJWT(payload).setProtectedHeader({ ...header, alg }).sign(key),
    ]),
  );
  const cannotSign = JOSE_ALGORITHMS.filter((alg) => !keys.has(alg));
  const unsignable = [...UNSIGNABLE_ALGORITHMS, ...cannotSign].flatMap(
    (alg): [string, string][] => [
      [`alg ${JSON.stringify(alg)}`, compact({ ...header, alg }, payload)],
      [`alg ${JSON.stringify(alg)}, no signature`, `${b64({ ...header, alg })}.${b64(payload)}.`],
    ],
  );
  return [...signed, ...unsignable, ...(await malformed(header, payload))];
}

/** Tokens whose header or structure is broken, or which try to bring their own key. */
async function malformed(
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
): Promise<[string, string][]> {
  // The attacker's own pair: a verifier that trusted an embedded key would accept this.
  const own = await generateKeyPair('EdDSA', { extractable: true });
  const jwk = await exportJWK(own.publicKey);
  return [
    ['no alg', compact(header, payload)],
    ['a header that is not JSON', `${b64('{"alg":')}.${b64(payload)}.${b64('sig')}`],
    ['a header that is a JSON array', compact([header], payload)],
    ['a header that is null', compact(null, payload)],
    ['a header that is not base64url', `*!*.${b64(payload)}.${b64('sig')}`],
    ['a signature that is not base64url', `${b64({ ...header, alg: 'EdDSA' })}.${b64(payload)}.*`],
    ['an unknown critical header', compact({ ...header, alg: 'EdDSA', crit: ['exp'] }, payload)],
    [
      'an unencoded payload (b64: false)',
      compact({ ...header, alg: 'EdDSA', b64: false, crit: ['b64'] }, payload),
    ],
    [
      'its own key in the header (jwk)',
      await new SignJWT(payload)
        .setProtectedHeader({ ...header, alg: 'EdDSA', jwk })
        .sign(own.privateKey),
    ],
    [
      'a key URL in the header (jku)',
      compact({ ...header, alg: 'ES256', jku: 'http://x/' }, payload),
    ],
    ['two parts', `${b64({ ...header, alg: 'EdDSA' })}.${b64(payload)}`],
    ['four parts', `${compact({ ...header, alg: 'EdDSA' }, payload)}.${b64('more')}`],
    ['dots only', '..'],
    [
      'a header of 6000 characters',
      compact({ ...header, alg: 'EdDSA', pad: 'x'.repeat(6000) }, payload),
    ],
  ];
}
