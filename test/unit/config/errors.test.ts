import { writeFileSync } from 'node:fs';
import { tempDir } from '../../support/temp-dirs.js';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/load.js';

/** The problems loadConfig reports for `object`; fails the test if it loads. */
function problemsOf(object: unknown): readonly string[] {
  try {
    loadConfig({ object, env: {} });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

function problemsOfFile(text: string): readonly string[] {
  const file = join(tempDir('pg-config-'), 'c.yaml');
  writeFileSync(file, text);
  try {
    loadConfig({ file, env: {} });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((p) => p.replace(file, 'FILE'));
    throw error;
  }
  throw new Error('expected a ConfigError');
}

const remote = (name: string) => ({ name, gitopsCluster: { namespace: 'fleet', name } });
const jwtBase = { issuer: 'https://idp', audience: 'gateway', algorithms: ['ES256'] };
const dnsLabel = '"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"';

describe('configuration mistakes name their field', () => {
  it.each<[string, unknown, string]>([
    [
      'a bad cluster name',
      { clusters: [{ name: 'Prod_EU' }] },
      `config /clusters/0/name: must match pattern ${dnsLabel}`,
    ],
    ['a string port', { server: { port: '8080' } }, 'config /server/port: must be integer'],
    ['a port out of range', { server: { port: 70000 } }, 'config /server/port: must be <= 65535'],
    ['a negative jitter', { resync: { jitter: -0.5 } }, 'config /resync/jitter: must be >= 0'],
    ['an unknown key', { server: { prot: 1 } }, 'config /server/prot: is not a known field'],
    ['an unknown top-level key', { cluster: [] }, 'config /cluster: is not a known field'],
    ['a missing cluster name', { clusters: [{}] }, 'config /clusters/0/name: is required'],
    [
      'a missing jwt issuer',
      { jwt: { audience: 'a', algorithms: ['RS256'], jwksUrl: 'https://idp/k' } },
      'config /jwt/issuer: is required',
    ],
    [
      'jwt without keys',
      { jwt: jwtBase },
      'config /jwt: must set at least one of "jwksUrl", "publicKeys"',
    ],
    [
      'jwt alg none',
      { jwt: { ...jwtBase, algorithms: ['none'], jwksUrl: 'https://idp/k' } },
      'config /jwt/algorithms/0: must be one of "RS256", "RS384"',
    ],
    [
      'an unknown log level',
      { logLevel: 'verbose' },
      'config /logLevel: must be one of "fatal", "error"',
    ],
    [
      'a plain-http JWKS URL',
      { jwt: { ...jwtBase, jwksUrl: 'http://idp.example/jwks' } },
      'config /jwt/jwksUrl: must match pattern',
    ],
    [
      'a localhost look-alike JWKS URL',
      { jwt: { ...jwtBase, jwksUrl: 'http://localhost.evil.example/jwks' } },
      'config /jwt/jwksUrl: must match pattern',
    ],
    [
      'three HMAC keys',
      {
        clusters: [
          { name: 'management', hmacKeys: [{ value: 'a' }, { value: 'b' }, { value: 'c' }] },
        ],
      },
      'config /clusters/0/hmacKeys: must NOT have more than 2 items',
    ],
    [
      'a secret with two sources',
      { clusters: [{ name: 'management', hmacKeys: [{ value: 'a', env: 'B' }] }] },
      'config /clusters/0/hmacKeys/0: must be an object with exactly one of "value", "file" or "env"',
    ],
    [
      'a secret with no source',
      { promotion: { webhooks: { ci: { url: 'https://ci/h', secret: {} } } } },
      'config /promotion/webhooks/ci/secret: must be an object with exactly one of "value", "file" or "env"',
    ],
    [
      'a bad env var name',
      { clusters: [{ name: 'management', hmacKeys: [{ env: 'A-B' }] }] },
      'config /clusters/0/hmacKeys/0/env: must match pattern',
    ],
    [
      'a bad webhook name',
      { promotion: { webhooks: { Bad_Name: { url: 'https://ci/h' } } } },
      `config /promotion/webhooks/Bad_Name: name must match pattern ${dnsLabel}`,
    ],
    [
      'a non-http webhook URL',
      { promotion: { webhooks: { ci: { url: 'ftp://ci/h' } } } },
      'config /promotion/webhooks/ci/url: must match pattern "^https?://"',
    ],
    [
      'a gitopsCluster without namespace',
      { clusters: [{ name: 'dev', gitopsCluster: { name: 'dev' } }] },
      'config /clusters/0/gitopsCluster/namespace: is required',
    ],
    ['a root that is not an object', ['server'], 'config: must be object'],
  ])('%s', (_name, object, expected) => {
    const problems = problemsOf(object);
    expect(problems.some((p) => p.startsWith(expected))).toBe(true);
  });

  it('lists every problem, not only the first', () => {
    const problems = problemsOf({
      server: { port: -1, hots: 'x' },
      clusters: [{ name: 'A' }],
      logLevel: 'loud',
    });
    expect(problems).toEqual([
      'config /server/hots: is not a known field',
      'config /server/port: must be >= 0',
      `config /clusters/0/name: must match pattern ${dnsLabel}`,
      'config /logLevel: must be one of "fatal", "error", "warn", "info", "debug", "trace", "silent"',
    ]);
  });

  it('puts every problem in the message, one per line', () => {
    expect(() =>
      loadConfig({ object: { server: { port: 'x' }, rateLimit: { max: 0 } }, env: {} }),
    ).toThrow('config /server/port: must be integer\nconfig /rateLimit/max: must be >= 1');
  });
});

describe('rules checked in code', () => {
  it('rejects duplicate cluster names', () => {
    expect(
      problemsOf({
        clusters: [
          remote('dev'),
          remote('prod'),
          { ...remote('dev'), gitopsCluster: { namespace: 'x', name: 'y' } },
        ],
      }),
    ).toEqual(['config /clusters/2/name: duplicates /clusters/0/name ("dev")']);
  });

  it('allows a cluster without gitopsCluster only for the management cluster', () => {
    expect(problemsOf({ management: { name: 'hub' }, clusters: [{ name: 'management' }] })).toEqual(
      [
        'config /clusters/0/gitopsCluster: is required unless the cluster is the management cluster ("hub")',
      ],
    );
  });

  it('rejects two clusters behind one GitopsCluster', () => {
    expect(
      problemsOf({
        clusters: [
          remote('a'),
          { ...remote('b'), gitopsCluster: { namespace: 'fleet', name: 'a' } },
        ],
      }),
    ).toEqual(['config /clusters/1/gitopsCluster: duplicates /clusters/0/gitopsCluster']);
  });

  it('rejects backoff bases above their caps', () => {
    expect(
      problemsOf({
        hints: { retryBaseMs: 5000, retryMaxMs: 1000 },
        promotion: { retry: { backoffBaseMs: 10, backoffMaxMs: 5 } },
      }),
    ).toEqual([
      'config /hints/retryMaxMs: must be >= retryBaseMs (5000)',
      'config /promotion/retry/backoffMaxMs: must be >= backoffBaseMs (10)',
    ]);
  });

  it('rejects leader-election timings where a leader could outlive its Lease', () => {
    expect(problemsOf({ leaderElection: { leaseDurationMs: 5000 } })).toEqual([
      'config /leaderElection/renewDeadlineMs: must be < leaseDurationMs (5000)',
    ]);
    expect(problemsOf({ leaderElection: { renewDeadlineMs: 3000, retryPeriodMs: 3000 } })).toEqual([
      'config /leaderElection/retryPeriodMs: must be < renewDeadlineMs (3000)',
    ]);
    expect(problemsOf({ leaderElection: { leaseDurationMs: 1500 } })).toEqual([
      'config /leaderElection/leaseDurationMs: must be multiple of 1000',
    ]);
  });

  it('rejects a metrics port equal to the main port, but not two "any free port" zeros', () => {
    expect(problemsOf({ server: { port: 8080, metricsPort: 8080 } })).toEqual([
      'config /server/metricsPort: must differ from /server/port',
    ]);
    const zeros = loadConfig({ object: { server: { port: 0, metricsPort: 0 } }, env: {} });
    expect(zeros.server.metricsPort).toBe(0);
    const apart = loadConfig({ object: { server: { metricsPort: 9090 } }, env: {} });
    expect(apart.server).toMatchObject({ port: 8080, metricsPort: 9090 });
  });
});

describe('file parsing', () => {
  it('reports a YAML syntax error by position', () => {
    const problems = problemsOfFile('server:\n  port: 8080\n   host: x\n');
    expect(problems.length).toBeGreaterThan(0);
    expect(problems[0]).toMatch(
      /^config file "FILE": not valid YAML or JSON at line [23], column \d+ \([A-Z_]+\)$/,
    );
  });

  it('rejects duplicate keys', () => {
    expect(problemsOfFile('logLevel: info\nlogLevel: debug\n')[0]).toMatch(/\(DUPLICATE_KEY\)$/);
  });

  it('rejects an empty file as not an object', () => {
    expect(problemsOfFile('')).toEqual(['config: must be object']);
  });

  it('rejects __proto__ as an unknown field instead of honouring it', () => {
    expect(problemsOfFile('__proto__: { logLevel: debug }\n')).toEqual([
      'config /__proto__: is not a known field',
    ]);
  });
});
