/**
 * Compact JWS made synchronously with node:crypto, so fast-check can sign claims it generated
 * inside a property (jose signs asynchronously), and the ways a token is forged or broken:
 * another key, `alg: none`, HS256 keyed with the public key (algorithm confusion), a header
 * naming another algorithm than the signature's, an unknown `kid`, truncated or extra
 * segments, a flipped signature bit, a signature spliced from another token (a valid signature
 * over other claims), and plain garbage.
 */
import {
  createHmac,
  generateKeyPairSync,
  sign,
  type KeyObject,
  type JsonWebKey,
} from 'node:crypto';
import fc from 'fast-check';

/** The algorithms a signer may hold; each key signs with exactly one. */
export type SignerAlg = 'RS256' | 'ES256' | 'EdDSA';

/** A private key, its public half as PEM and JWK, and the header it signs with. */
export interface Signer {
  alg: SignerAlg;
  kid: string;
  privateKey: KeyObject;
  publicPem: string;
  publicJwk: JsonWebKey;
}

/** A fresh signer of `alg` named `kid` (RSA 2048, P-256 or Ed25519). */
export function newSigner(alg: SignerAlg, kid: string): Signer {
  const pair =
    alg === 'RS256'
      ? generateKeyPairSync('rsa', { modulusLength: 2048 })
      : alg === 'ES256'
        ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
        : generateKeyPairSync('ed25519');
  return {
    alg,
    kid,
    privateKey: pair.privateKey,
    publicPem: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    publicJwk: { ...pair.publicKey.export({ format: 'jwk' }), kid, alg, use: 'sig' },
  };
}

const b64 = (bytes: Buffer | string): string => Buffer.from(bytes).toString('base64url');

/** One base64url JSON segment. */
export function segment(value: unknown): string {
  return b64(JSON.stringify(value));
}

function signature(alg: string, input: string, signer: Signer): string {
  const data = Buffer.from(input);
  if (alg === 'none') return '';
  // The classic confusion: an HMAC keyed with the verifier's own public key text.
  if (alg === 'HS256') return b64(createHmac('sha256', signer.publicPem).update(data).digest());
  if (signer.alg === 'ES256')
    return b64(sign('sha256', data, { key: signer.privateKey, dsaEncoding: 'ieee-p1363' }));
  return b64(sign(signer.alg === 'EdDSA' ? null : 'sha256', data, signer.privateKey));
}

/** `header.payload.signature`, the header's `alg` deciding how it is signed. */
export function signCompact(
  header: Record<string, unknown>,
  payload: unknown,
  signer: Signer,
): string {
  const input = `${segment(header)}.${segment(payload)}`;
  return `${input}.${signature(String(header.alg), input, signer)}`;
}

/** How a token is made: honestly, or one of the ways an attacker (or a bug) would. */
export type Forgery =
  | 'honest'
  | 'other-key'
  | 'alg-none'
  | 'hs256-public-key'
  | 'other-alg'
  | 'unknown-kid'
  | 'wrong-typ'
  | 'truncated'
  | 'extra-segment'
  | 'flipped-bit'
  | 'spliced'
  | 'garbage';

/** Every forgery: each must fail to authenticate. */
export const FORGERIES: readonly Exclude<Forgery, 'honest'>[] = [
  'other-key',
  'alg-none',
  'hs256-public-key',
  'other-alg',
  'unknown-kid',
  'wrong-typ',
  'truncated',
  'extra-segment',
  'flipped-bit',
  'spliced',
  'garbage',
];

/** The honest signer's header: `kid` unless it has none, `typ` when the verifier pins one. */
export function honestHeader(signer: Signer, typ?: string): Record<string, unknown> {
  return {
    alg: signer.alg,
    ...(signer.kid === '' ? {} : { kid: signer.kid }),
    ...(typ === undefined ? {} : { typ }),
  };
}

/** What a forgery needs: the honest signer, an attacker's key of the same kind, `typ`. */
export interface TokenMaker {
  signer: Signer;
  attacker: Signer;
  typ?: string;
}

/** Another asymmetric algorithm than each signer's own: its header lies about the signature. */
const OTHER_ALG: Readonly<Record<SignerAlg, string>> = {
  RS256: 'PS256',
  ES256: 'ES384',
  EdDSA: 'RS256',
};

/** `token` with its header replaced by `header`, its payload and signature kept. */
function relabel(token: string, header: Record<string, unknown>): string {
  const [, payload = '', sig = ''] = token.split('.');
  return `${segment(header)}.${payload}.${sig}`;
}

function flipBit(token: string, at: number): string {
  const dot = token.lastIndexOf('.');
  const sig = Buffer.from(token.slice(dot + 1), 'base64url');
  if (sig.length === 0) return `${token}A`;
  const index = at % sig.length;
  sig[index] = (sig[index] ?? 0) ^ (1 << (at % 8));
  return `${token.slice(0, dot + 1)}${b64(sig)}`;
}

/** The token `payload` makes under `forgery`; `noise` picks where it is cut or flipped. */
export function makeToken(
  maker: TokenMaker,
  payload: unknown,
  forgery: Forgery,
  noise: number,
): string {
  const { signer, attacker, typ } = maker;
  const header = honestHeader(signer, typ);
  const honest = () => signCompact(header, payload, signer);
  switch (forgery) {
    case 'honest':
      return honest();
    case 'other-key':
      return signCompact(header, payload, attacker);
    case 'alg-none':
      return signCompact({ ...header, alg: 'none' }, payload, signer);
    case 'other-alg':
      // The honest signature under a header naming another asymmetric algorithm.
      return relabel(honest(), { ...header, alg: OTHER_ALG[signer.alg] });
    case 'hs256-public-key':
      return signCompact({ ...header, alg: 'HS256' }, payload, signer);
    case 'unknown-kid':
      return signCompact({ ...header, kid: `${signer.kid}-rotated` }, payload, attacker);
    case 'wrong-typ':
      return signCompact({ ...header, typ: 'JWT+wrong' }, payload, signer);
    case 'truncated':
      return honest().slice(0, -(1 + (noise % 40)));
    case 'extra-segment':
      // Longer than the 3 bytes a short Content-Length cuts (wire.ts): no framing restores it.
      return `${honest()}.${b64('an extra segment')}`;
    case 'flipped-bit':
      return flipBit(honest(), noise);
    case 'spliced': {
      // A real signature by the honest key, over other claims: only the payload was swapped.
      const other = signCompact(header, { sub: 'someone-else', n: noise }, signer);
      const [h, , s] = other.split('.');
      return `${h ?? ''}.${segment(payload)}.${s ?? ''}`;
    }
    case 'garbage':
      return b64(String(noise)).repeat(1 + (noise % 5));
  }
}

/** A forgery, weighted so honest tokens are a good share of the runs. */
export function forgeryArb(): fc.Arbitrary<Forgery> {
  return fc.oneof(
    { arbitrary: fc.constant<Forgery>('honest'), weight: 3 },
    { arbitrary: fc.constantFrom(...FORGERIES), weight: 2 },
  );
}
