/**
 * Approvers' keys are read by src/config itself (src/config/keys.ts): an Ed25519 or P-256
 * public key, as PEM SPKI or JWK, is kept as given; any other key or text is a problem naming
 * its field, never its text, and the key's one algorithm is what verification will pin.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, defaultConfig } from '../../../src/config/load.js';
import { approvalAlgorithm, importPublicKey } from '../../../src/config/keys.js';

const spki = ({ publicKey }: { publicKey: KeyObject }): string =>
  publicKey.export({ format: 'pem', type: 'spki' }).toString();
const ed25519 = () => spki(generateKeyPairSync('ed25519'));
const ec = (namedCurve: string) => () => spki(generateKeyPairSync('ec', { namedCurve }));

function jwk(text: string): string {
  return JSON.stringify(importPublicKey(text).export({ format: 'jwk' }));
}

function problemsOf(publicKeys: string[]): readonly string[] {
  try {
    defaultConfig({
      approvals: {
        approvers: [{ name: 'alice', publicKeys: publicKeys.map((value) => ({ value })) }],
      },
    });
    return [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.problems;
  }
}

const NOT_A_KEY = 'must be a PEM public key (SPKI) or a public JWK in JSON';
const WRONG_TYPE = 'must be an Ed25519 (EdDSA) or P-256 (ES256) public key';

describe('approvers.publicKeys', () => {
  it('keeps Ed25519 and P-256 keys, as PEM and as JWK, exactly as given', () => {
    const keys = [ed25519(), ec('P-256')()];
    const texts = [...keys, ...keys.map(jwk)];
    const config = defaultConfig({
      approvals: { approvers: [{ name: 'alice', publicKeys: texts.map((value) => ({ value })) }] },
    });
    expect(config.authorizations.approvers[0]?.publicKeys).toEqual(texts);
    expect(texts.map((t) => approvalAlgorithm(importPublicKey(t)))).toEqual([
      'EdDSA',
      'ES256',
      'EdDSA',
      'ES256',
    ]);
  });

  it.each([
    ['P-384', ec('P-384')],
    ['P-521', ec('P-521')],
    ['secp256k1', ec('secp256k1')],
    ['RSA', () => spki(generateKeyPairSync('rsa', { modulusLength: 2048 }))],
    ['Ed448', () => spki(generateKeyPairSync('ed448'))],
    ['X25519', () => spki(generateKeyPairSync('x25519'))],
  ])('refuses a %s key, naming the field', (_, key) => {
    const text = key();
    expect(approvalAlgorithm(importPublicKey(text))).toBeUndefined();
    expect(problemsOf([ed25519(), text])).toEqual([
      `config /approvals/approvers/0/publicKeys/1: ${WRONG_TYPE}`,
    ]);
  });

  it.each([
    'not a key at all',
    '-----BEGIN PUBLIC KEY-----\nc2VjcmV0LXRleHQ=\n-----END PUBLIC KEY-----',
    '{"kty":"OKP","crv":"Ed25519","x":"c2VjcmV0LXRleHQ"}',
    '{"kty":"oct","k":"c2VjcmV0LXRleHQ"}',
  ])('refuses %j without repeating it', (text) => {
    const problems = problemsOf([text]);
    expect(problems).toEqual([`config /approvals/approvers/0/publicKeys/0: ${NOT_A_KEY}`]);
    expect(() => importPublicKey(text)).toThrow(
      new TypeError('not a public key (PEM SPKI or JWK)'),
    );
    expect(problems.join('\n')).not.toContain('c2VjcmV0');
  });
});
