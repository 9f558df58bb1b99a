/**
 * The `ui` configuration: off unless configured; read once with its defaults; a port of its
 * own; and a token check unless the demo-only anonymous switch is on.
 */
import { describe, expect, it } from 'vitest';
import type { JwtInput } from '../../../src/config/input.js';
import { ConfigError, defaultConfig } from '../../../src/config/load.js';

const jwt: JwtInput = {
  issuer: 'https://issuer.test',
  audience: 'gateway',
  algorithms: ['RS256'],
  jwksUrl: 'https://issuer.test/jwks',
};

function problems(object: Parameters<typeof defaultConfig>[0]): readonly string[] {
  try {
    defaultConfig(object);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('ui configuration', () => {
  it('is off unless configured, and gets its defaults when it is', () => {
    expect(defaultConfig({}).ui).toBeUndefined();
    expect(defaultConfig({ jwt, ui: { port: 8081 } }).ui).toEqual({
      port: 8081,
      anonymous: false,
      maxStreams: 256,
    });
    expect(Object.isFrozen(defaultConfig({ ui: { port: 0, anonymous: true } }).ui)).toBe(true);
  });

  it('needs jwt unless anonymous, and a port of its own', () => {
    expect(problems({ ui: { port: 8081 } })).toEqual([
      "config /ui: needs /jwt (the viewers' tokens are verified with it), or anonymous: true",
    ]);
    expect(problems({ ui: { port: 8080, anonymous: true } })).toEqual([
      'config /ui/port: must differ from /server/port and /server/metricsPort',
    ]);
    expect(
      problems({ server: { metricsPort: 9090 }, ui: { port: 9090, anonymous: true } }),
    ).toHaveLength(1);
    expect(problems({ server: { port: 0 }, ui: { port: 0, anonymous: true } })).toEqual([]);
  });

  it('refuses unknown fields and out-of-range values', () => {
    expect(problems({ ui: { port: 70000, anonymous: true } })[0]).toContain('/ui/port');
    expect(problems({ ui: { port: 1, anonymous: true, maxStreams: 0 } })[0]).toContain(
      '/ui/maxStreams',
    );
    const unknown = { port: 1, anonymous: true, colour: 'blue' } as unknown as { port: number };
    expect(problems({ ui: unknown })[0]).toContain('/ui');
  });
});
