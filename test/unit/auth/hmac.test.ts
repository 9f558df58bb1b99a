import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkSignature,
  parseSignature,
  signBody,
  verifySignature,
} from '../../../src/auth/hmac.js';

const key = Buffer.from('7152fed34dd6149a7c75a276c510da27cb6f82b0', 'utf8');
const body = Buffer.from('{"a":1}');

describe('parseSignature', () => {
  it('parses <alg>=<hex> case-insensitively', () => {
    expect(parseSignature('SHA256=ABCD')).toEqual({
      algorithm: 'sha256',
      digest: Buffer.from([0xab, 0xcd]),
    });
    expect(parseSignature('sha512=00')?.algorithm).toBe('sha512');
  });

  it.each([
    undefined,
    '',
    'sha256',
    'sha256=',
    'sha256=abc',
    'md5=00',
    'sha256=zz',
    'sha256=00 00',
    'sha1=00',
  ])('rejects %j', (header) => {
    expect(parseSignature(header)).toBeUndefined();
  });
});

describe('verifySignature', () => {
  it('matches the Flux reference computation', () => {
    const expected = `sha256=${createHmac('sha256', key).update(body).digest('hex')}`;
    expect(signBody(body, key)).toBe(expected);
    expect(verifySignature(body, expected, [key])).toBe(true);
  });

  it('accepts any of several keys, in any position', () => {
    const other = Buffer.from('other');
    expect(verifySignature(body, signBody(body, key), [other, key])).toBe(true);
    expect(verifySignature(body, signBody(body, key), [key, other])).toBe(true);
    expect(verifySignature(body, signBody(body, key), [other, other, other, key])).toBe(true);
  });

  it('fails with no keys, an empty key, a missing header or a truncated/extended digest', () => {
    const good = signBody(body, key);
    expect(verifySignature(body, good, [])).toBe(false);
    expect(verifySignature(body, signBody(body, Buffer.alloc(0)), [Buffer.alloc(0)])).toBe(false);
    expect(verifySignature(body, undefined, [key])).toBe(false);
    expect(verifySignature(body, good.slice(0, -2), [key])).toBe(false);
    expect(verifySignature(body, `${good}00`, [key])).toBe(false);
    expect(verifySignature(body, good.replace('sha256', 'sha512'), [key])).toBe(false);
  });

  it('verifies with the bytes a key Buffer holds now, not those it held at an earlier call', () => {
    const rotated = Buffer.from(key);
    const signed = signBody(body, key);
    expect(verifySignature(body, signed, [rotated])).toBe(true);
    rotated.fill(0x61);
    expect(verifySignature(body, signed, [rotated])).toBe(false);
    expect(verifySignature(body, signBody(body, rotated), [rotated])).toBe(true);
  });

  it('property: a signature verifies iff body and key are the ones signed', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 512 }),
        fc.uint8Array({ minLength: 1, maxLength: 64 }),
        fc.constantFrom('sha256' as const, 'sha384' as const, 'sha512' as const),
        fc.nat(),
        (bytes, keyBytes, algorithm, flip) => {
          const signedBody = Buffer.from(bytes);
          const signingKey = Buffer.from(keyBytes);
          const header = signBody(signedBody, signingKey, algorithm);
          expect(verifySignature(signedBody, header, [signingKey])).toBe(true);
          if (signedBody.length > 0) {
            const altered = Buffer.from(signedBody);
            const index = flip % altered.length;
            altered[index] = altered[index]! ^ 0x01;
            expect(verifySignature(altered, header, [signingKey])).toBe(false);
          }
          const otherKey = Buffer.concat([signingKey, Buffer.from([1])]);
          expect(verifySignature(signedBody, header, [otherKey])).toBe(false);
        },
      ),
    );
  });

  it('property: any header that is not the signature is false, never an exception', () => {
    const good = signBody(body, key);
    const headers = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc.string({ unit: 'binary', maxLength: 300 }),
      fc.stringMatching(/^(sha256|sha384|sha512|SHA1|md5|)=[0-9a-fA-F]{0,200}$/),
      fc.constantFrom(`${good} `, ` ${good}`, `${good},${good}`, good.toUpperCase().slice(0, -1)),
    );
    fc.assert(
      fc.property(headers, (header) => {
        expect(verifySignature(body, header, [key])).toBe(header.trim().toLowerCase() === good);
      }),
    );
  });
});

describe('checkSignature', () => {
  it('tells a missing, a malformed and a wrong signature apart, and agrees with verifySignature', () => {
    const good = signBody(body, key);
    const wrong = signBody(body, Buffer.from('another key'));
    const cases: [string | undefined, readonly Buffer[], string][] = [
      [good, [key], 'valid'],
      [good.toUpperCase(), [Buffer.from('old'), key], 'valid'],
      [undefined, [key], 'missing'],
      ['', [key], 'malformed'],
      ['sha256=abcd', [key], 'malformed'],
      [`sha384=${good.slice(7)}`, [key], 'malformed'],
      [wrong, [key], 'mismatch'],
      // No key at all: the right-looking signature is still only a mismatch.
      [good, [], 'mismatch'],
    ];
    for (const [header, keys, expected] of cases) {
      expect([header, checkSignature(body, header, keys)]).toEqual([header, expected]);
      expect(verifySignature(body, header, keys)).toBe(expected === 'valid');
    }
  });
});
