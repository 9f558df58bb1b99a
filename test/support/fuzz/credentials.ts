/**
 * The credential headers of the doors, right and wrong: `X-Signature` HMACs (any accepted
 * algorithm, either key of a rotation, hex in either case; or another key, another body, cut
 * short, odd length, a mislabelled algorithm, SHA-1, zeros, two values, absent) and
 * `Authorization` schemes around a generated token (Bearer in any case; Basic, Token, none,
 * trailing text).
 */
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { worst, type FuzzToken, type Validity } from './claims.js';

/** A credential header (or none), whether it authenticates, and how it was made. */
export interface HeaderCredential {
  headers: [string, string][];
  validity: Validity;
  label: string;
}

const hmac = (alg: string, key: Buffer, body: Buffer) =>
  createHmac(alg, key).update(body).digest('hex');

type Signature = (body: Buffer) => HeaderCredential;

function signed(label: string, validity: Validity, value: (body: Buffer) => string): Signature {
  return (body) => ({ headers: [['x-signature', value(body)]], validity, label: `hmac:${label}` });
}

/** X-Signature headers for a sender whose keys are `keys`; `others` are keys of someone else. */
export function signatureArb(
  keys: readonly Buffer[],
  others: readonly Buffer[],
): fc.Arbitrary<Signature> {
  const alg = fc.constantFrom('sha256', 'sha384', 'sha512');
  const right = fc.tuple(alg, fc.constantFrom(...keys), fc.boolean()).map(([a, key, upper]) =>
    signed(`right-${a}${upper ? '-upper' : ''}`, 'valid', (b) => {
      const value = `${a}=${hmac(a, key, b)}`;
      return upper ? value.toUpperCase() : value;
    }),
  );
  const key = keys[0] ?? Buffer.alloc(0);
  const wrong = fc.constantFrom<Signature>(
    signed(
      'other-body',
      'invalid',
      (b) => `sha256=${hmac('sha256', key, Buffer.concat([b, Buffer.from(' ')]))}`,
    ),
    signed('cut-short', 'invalid', (b) => `sha256=${hmac('sha256', key, b).slice(0, -2)}`),
    signed('odd-length', 'invalid', (b) => `sha256=${hmac('sha256', key, b).slice(0, -1)}`),
    signed('mislabelled', 'invalid', (b) => `sha384=${hmac('sha256', key, b)}`),
    signed('sha1', 'invalid', (b) => `sha1=${hmac('sha1', key, b)}`),
    signed('zeros', 'invalid', () => `sha256=${'0'.repeat(64)}`),
    signed('empty', 'invalid', () => 'sha256='),
    signed('bare-hex', 'invalid', (b) => hmac('sha256', key, b)),
    signed(
      'two-values',
      'invalid',
      (b) => `sha256=${hmac('sha256', key, b)}, sha256=${hmac('sha256', key, b)}`,
    ),
    signed('empty-key', 'invalid', (b) => `sha256=${hmac('sha256', Buffer.alloc(0), b)}`),
    () => ({ headers: [], validity: 'invalid', label: 'hmac:absent' }),
  );
  const foreign = fc
    .constantFrom(...others)
    .map((k) => signed('other-key', 'invalid', (b) => `sha256=${hmac('sha256', k, b)}`));
  return fc.oneof({ arbitrary: right, weight: 3 }, { arbitrary: wrong, weight: 3 }, foreign);
}

/** `Authorization` around a generated token: a Bearer scheme keeps it, anything else breaks it. */
export function bearerArb(tokens: fc.Arbitrary<FuzzToken>): fc.Arbitrary<HeaderCredential> {
  const keeps = fc.constantFrom('Bearer ', 'bearer ', 'BEARER ', 'Bearer   ');
  const breaks = fc.constantFrom('Basic ', 'Token ', 'JWT ', '', 'Bearer:', 'Bearer\u00a0');
  const as = (v: Validity) => (s: string) => ({ s, v });
  const scheme = fc.oneof(
    { arbitrary: keeps.map(as('valid')), weight: 4 },
    breaks.map(as('invalid')),
  );
  return fc
    .tuple(tokens, scheme, fc.constantFrom('', '', '', ' trailing'))
    .map(([t, { s, v }, tail]) => ({
      headers: [['authorization', `${s}${t.token}${tail}`]],
      validity: worst(worst(t.validity, v), tail === '' ? 'valid' : 'invalid'),
      label: `bearer:${JSON.stringify(s)}${tail === '' ? '' : '+tail'} ${t.label}`,
    }));
}
