/**
 * Webhook signing secrets in the Standard Webhooks form `whsec_<base64>` are keyed with the
 * decoded bytes, as the specification and its libraries read them; any other secret keeps its
 * own bytes; a `whsec_` secret that is not base64 stops the load naming the field, never the
 * secret.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ConfigError, defaultConfig, loadConfig } from '../../../src/config/load.js';
import type { ConfigInput } from '../../../src/config/input.js';
import { tempDir } from '../../support/temp-dirs.js';

const KEY = randomBytes(32);
const WHSEC = `whsec_${KEY.toString('base64')}`;
const POINTER = '/promotion/webhooks/deploy/secret';

function withSecret(secret: object): ConfigInput {
  return {
    promotion: { webhooks: { deploy: { url: 'https://deploy.example.com/', secret } } } as never,
  };
}

function keyOf(config: ReturnType<typeof defaultConfig>): Buffer | undefined {
  return config.promotion.webhooks.deploy?.secret;
}

function problemsOf(input: ConfigInput, env: Record<string, string> = {}): readonly string[] {
  try {
    defaultConfig(input, { env });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('a webhook secret', () => {
  it('whsec_<base64> as a value: the decoded bytes, not the text', () => {
    const key = keyOf(defaultConfig(withSecret({ value: WHSEC })));
    expect(key?.equals(KEY)).toBe(true);
    expect(key?.equals(Buffer.from(WHSEC))).toBe(false);
  });

  it('whsec_<base64> from a variable, and from a file with a trailing newline', () => {
    const fromEnv = defaultConfig(withSecret({ env: 'WH' }), { env: { WH: WHSEC } });
    expect(keyOf(fromEnv)?.equals(KEY)).toBe(true);
    const dir = tempDir('pg-whsec-');
    const file = join(dir, 'secret');
    writeFileSync(file, `${WHSEC}\n`);
    writeFileSync(
      join(dir, 'config.yaml'),
      `promotion:\n  webhooks:\n    deploy: { url: "https://d.example.com/", secret: { file: secret } }\n`,
    );
    const fromFile = loadConfig({ file: join(dir, 'config.yaml'), env: {} });
    expect(keyOf(fromFile)?.equals(KEY)).toBe(true);
  });

  it('without the prefix: its own UTF-8 bytes', () => {
    const key = keyOf(defaultConfig(withSecret({ value: 'raw-secret-text' })));
    expect(key?.equals(Buffer.from('raw-secret-text', 'utf8'))).toBe(true);
  });

  it('decoded still prints as [secret]', () => {
    const config = defaultConfig(withSecret({ value: WHSEC }));
    const printed = `${JSON.stringify(config)} ${inspect(config, { depth: 10 })}`;
    expect(printed).toContain('[secret]');
    expect(printed).not.toContain(KEY.toString('base64'));
  });

  it.each([
    ['not base64 at all', 'whsec_not*base64!'],
    ['unpadded', `whsec_${KEY.toString('base64').replace(/=+$/, '')}`],
    ['the URL-safe alphabet', `whsec_${Buffer.from([0xfb, 0xff, 0xfe]).toString('base64url')}`],
    ['nothing after the prefix', 'whsec_'],
    [
      'spaces inside',
      `whsec_${KEY.toString('base64').slice(0, 8)} ${KEY.toString('base64').slice(8)}`,
    ],
  ])('whsec_ followed by %s: one problem naming the field, never the secret', (_what, secret) => {
    const problems = problemsOf(withSecret({ env: 'WH' }), { WH: secret });
    expect(problems).toEqual([
      `config ${POINTER}: starts with "whsec_" but what follows is not a key in base64 (standard alphabet, padded); a secret without the prefix is used as its bytes`,
    ]);
    expect(problems.join('\n')).not.toContain(secret.slice(6) === '' ? '\u0000' : secret.slice(6));
  });
});
