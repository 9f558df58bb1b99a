import { generateKeyPairSync } from 'node:crypto';
import { tempDir } from '../../support/temp-dirs.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ConfigError, defaultConfig, loadConfig } from '../../../src/config/load.js';
import type { ConfigInput } from '../../../src/config/input.js';

const SECRET = 'S3CRET-do-not-print-4f9a';

function secretsDir(): string {
  return tempDir('pg-secrets-');
}

function errorOf(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

const withKey = (key: object): ConfigInput => ({
  clusters: [{ name: 'management', hmacKeys: [key as { value: string }] }],
});

function keyOf(config: ReturnType<typeof defaultConfig>, cluster = 0, key = 0): Buffer {
  return config.clusters[cluster]!.hmacKeys[key]!;
}

const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const publicPem = publicKey.export({ type: 'spki', format: 'pem' }) as string;
const privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
const publicJwk = JSON.stringify(publicKey.export({ format: 'jwk' }));
const privateJwk = JSON.stringify(privateKey.export({ format: 'jwk' }));

describe('secret sources resolve to exact bytes', () => {
  it('value: the UTF-8 bytes of the string', () => {
    expect(
      keyOf(defaultConfig(withKey({ value: 'ké€y' }))).equals(Buffer.from('ké€y', 'utf8')),
    ).toBe(true);
  });

  it('env: the UTF-8 bytes of the variable', () => {
    const config = defaultConfig(withKey({ env: 'HMAC_KEY' }), { env: { HMAC_KEY: 'ümlaut ' } });
    expect(keyOf(config).equals(Buffer.from('ümlaut ', 'utf8'))).toBe(true);
  });

  it('file: the bytes as read, trailing newline and non-UTF-8 bytes included', () => {
    const bytes = Buffer.from([0x6b, 0x00, 0xff, 0x20, 0x0a]);
    const dir = secretsDir();
    mkdirSync(join(dir, 'secrets'));
    writeFileSync(join(dir, 'secrets', 'token'), bytes);
    writeFileSync(
      join(dir, 'c.yaml'),
      'clusters: [{ name: management, hmacKeys: [{ file: secrets/token }] }]',
    );
    const config = loadConfig({ file: join(dir, 'c.yaml'), env: {} });
    expect([...keyOf(config)]).toEqual([...bytes]);
  });

  it('takes two keys during rotation, and a webhook secret', () => {
    const config = defaultConfig(
      {
        clusters: [{ name: 'management', hmacKeys: [{ value: 'old' }, { value: 'new' }] }],
        promotion: { webhooks: { ci: { url: 'http://ci.ns.svc/hook', secret: { env: 'WH' } } } },
      },
      { env: { WH: 'whsec' } },
    );
    expect(config.clusters[0]!.hmacKeys.map((k) => k.toString())).toEqual(['old', 'new']);
    expect(config.promotion.webhooks.ci?.secret?.toString()).toBe('whsec');
    expect(config.promotion.webhooks.ci?.timeoutMs).toBe(5000);
  });

  it('takes JWT public keys as PEM or JWK text', () => {
    const config = defaultConfig({
      jwt: {
        issuer: 'i',
        audience: 'a',
        algorithms: ['ES256'],
        publicKeys: [{ value: publicPem }, { value: publicJwk }],
      },
    });
    expect(config.jwt?.publicKeys).toEqual([publicPem, publicJwk]);
    expect(config.jwt?.clockToleranceSeconds).toBe(5);
  });
});

describe('secret problems', () => {
  it('names a missing file by field and path', () => {
    const dir = secretsDir();
    const error = errorOf(() =>
      loadConfig({ object: withKey({ file: join(dir, 'nope') }), env: {} }),
    );
    expect(error.problems).toEqual([
      `config /clusters/0/hmacKeys/0/file: cannot read "${join(dir, 'nope')}" (ENOENT)`,
    ]);
  });

  it('names a missing environment variable', () => {
    const error = errorOf(() => defaultConfig(withKey({ env: 'HMAC_KEY' })));
    expect(error.problems).toEqual([
      'config /clusters/0/hmacKeys/0/env: environment variable "HMAC_KEY" is not set',
    ]);
  });

  it('refuses an empty secret', () => {
    const error = errorOf(() =>
      defaultConfig(withKey({ env: 'HMAC_KEY' }), { env: { HMAC_KEY: '' } }),
    );
    expect(error.problems).toEqual(['config /clusters/0/hmacKeys/0: resolves to an empty secret']);
  });

  it('refuses one HMAC key shared by two clusters, allows it twice in one', () => {
    const key = { value: SECRET };
    const error = errorOf(() =>
      defaultConfig({
        clusters: [
          { name: 'management', hmacKeys: [key, key] },
          {
            name: 'prod',
            gitopsCluster: { namespace: 'f', name: 'prod' },
            hmacKeys: [{ value: 'x' }, key],
          },
        ],
      }),
    );
    expect(error.problems).toEqual([
      'config /clusters/1/hmacKeys/1: is the same key as /clusters/0/hmacKeys/0; use one key per cluster',
    ]);
  });

  it.each(
    [
      ['a private PEM key', privatePem, 'is a private key; give the public key'],
      ['a private JWK', privateJwk, 'is a private key; give the public key'],
      ['plain text', SECRET, 'must be a PEM public key (SPKI) or a JWK in JSON'],
    ].map(([name, text, why]) => [name!, text!, why!]),
  )('refuses %s as a JWT key', (_name, text, why) => {
    const error = errorOf(() =>
      defaultConfig({
        jwt: { issuer: 'i', audience: 'a', algorithms: ['ES256'], publicKeys: [{ value: text }] },
      }),
    );
    expect(error.problems).toEqual([`config /jwt/publicKeys/0: ${why}`]);
  });
});

describe('secrets never leak', () => {
  const dir = secretsDir();
  const leaky: [string, () => unknown][] = [
    ['a secret beside a second source', () => defaultConfig(withKey({ value: SECRET, file: 'x' }))],
    ['a secret written as a key', () => defaultConfig(withKey({ [SECRET]: null }))],
    [
      'a secret in a sibling of a mistake',
      () => defaultConfig({ ...withKey({ value: SECRET }), logLevel: 'x' as 'info' }),
    ],
    [
      'a shared key',
      () =>
        defaultConfig({
          clusters: [
            { name: 'management', hmacKeys: [{ value: SECRET }] },
            {
              name: 'b',
              gitopsCluster: { namespace: 'f', name: 'b' },
              hmacKeys: [{ value: SECRET }],
            },
          ],
        }),
    ],
    [
      'a secret as a JWT key',
      () =>
        defaultConfig(
          {
            jwt: { issuer: 'i', audience: 'a', algorithms: ['HS256'], publicKeys: [{ env: 'K' }] },
          },
          { env: { K: SECRET } },
        ),
    ],
    [
      'a private key',
      () =>
        defaultConfig({
          jwt: {
            issuer: 'i',
            audience: 'a',
            algorithms: ['ES256'],
            publicKeys: [{ value: privatePem }],
          },
        }),
    ],
    [
      'a YAML error next to a secret',
      () => {
        writeFileSync(
          join(dir, 'bad.yaml'),
          `clusters:\n  - name: management\n    hmacKeys: [{ value: ${SECRET} }\n   oops: [\n`,
        );
        return loadConfig({ file: join(dir, 'bad.yaml'), env: {} });
      },
    ],
  ];

  it.each(leaky)('%s: the error never shows the secret', (_name, run) => {
    const error = errorOf(run);
    expect(error.problems.length).toBeGreaterThan(0);
    expect(error.message).not.toContain(SECRET);
    expect(error.message).not.toContain('PRIVATE KEY');
    expect(error.message).not.toContain(Buffer.from(SECRET).toString('hex'));
  });

  it('a loaded config prints secrets as [secret] in JSON and inspect', () => {
    const config = defaultConfig({
      ...withKey({ value: SECRET }),
      promotion: { webhooks: { ci: { url: 'https://ci/h', secret: { value: SECRET } } } },
    });
    for (const text of [JSON.stringify(config), inspect(config, { depth: 10 })]) {
      expect(text).not.toContain(SECRET);
      expect(text).toContain('[secret]');
    }
    expect(keyOf(config).toString()).toBe(SECRET);
  });
});
