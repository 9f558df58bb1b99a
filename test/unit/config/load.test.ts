import { writeFileSync } from 'node:fs';
import { tempDir } from '../../support/temp-dirs.js';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, defaultConfig, loadConfig } from '../../../src/config/load.js';

function tempFile(name: string, content: string | Buffer): string {
  const path = join(tempDir('pg-config-'), name);
  writeFileSync(path, content);
  return path;
}

/** Every object and array reachable from `value` (Buffers excepted) that is not frozen. */
function unfrozenPaths(value: unknown, path = ''): string[] {
  if (typeof value !== 'object' || value === null || Buffer.isBuffer(value)) return [];
  const own = Object.isFrozen(value) ? [] : [path || '/'];
  return [
    ...own,
    ...Object.entries(value).flatMap(([key, child]) => unfrozenPaths(child, `${path}/${key}`)),
  ];
}

const minimalYaml = `
clusters:
  - name: management
  - name: prod-eu
    gitopsCluster: { namespace: fleet, name: prod-eu }
    hmacKeys:
      - value: k1
`;

describe('loadConfig', () => {
  it('loads a minimal YAML file and fills in every default', () => {
    const config = loadConfig({
      file: tempFile('c.yaml', minimalYaml),
      env: {},
      hostname: 'gw',
      pid: 7,
    });
    expect(config.server).toEqual({
      host: '0.0.0.0',
      port: 8080,
      bodyLimitBytes: 65536,
      requestTimeoutMs: 10000,
      trustProxy: false,
    });
    expect(config.rateLimit).toEqual({ max: 300, timeWindowMs: 60000 });
    expect(config.management).toEqual({ name: 'management' });
    expect(config.pipelineNamespaces).toEqual([]);
    expect(config.jwt).toBeUndefined();
    expect(config.hints).toEqual({
      capacity: 10000,
      perClusterConcurrency: 4,
      retryBaseMs: 500,
      retryMaxMs: 60000,
      maxRetries: 8,
    });
    expect(config.resync).toEqual({ intervalMs: 300000, jitter: 0.1 });
    expect(config.promotion.retry).toEqual({
      maxAttempts: 3,
      backoffBaseMs: 30000,
      backoffMaxMs: 600000,
      claimTimeoutMs: 900000,
    });
    expect(config.promotion.webhooks).toEqual({});
    expect(config.promotion.instanceId).toBe('gw-7');
    expect(config.logLevel).toBe('info');
    expect(config.clusters.map((c) => [c.name, c.gitopsCluster, c.jwtSubjects])).toEqual([
      ['management', undefined, []],
      ['prod-eu', { namespace: 'fleet', name: 'prod-eu' }, []],
    ]);
  });

  it('returns a deeply frozen object', () => {
    const config = defaultConfig({
      clusters: [{ name: 'management', hmacKeys: [{ value: 'k' }], jwtSubjects: ['ci'] }],
      jwt: { issuer: 'i', audience: 'a', algorithms: ['ES256'], jwksUrl: 'https://idp/jwks' },
      promotion: { webhooks: { ci: { url: 'https://ci.example/hook' } } },
    });
    expect(unfrozenPaths(config)).toEqual([]);
    expect(Object.isFrozen(config.clusters[0]?.jwtSubjects)).toBe(true);
    expect(() => {
      (config.server as { port: number }).port = 1;
    }).toThrow(TypeError);
  });

  it('reads JSON files with the same parser', () => {
    const file = tempFile('c.json', JSON.stringify({ server: { port: 9090 }, logLevel: 'debug' }));
    const config = loadConfig({ file, env: {} });
    expect([config.server.port, config.logLevel]).toEqual([9090, 'debug']);
  });

  it('does not write defaults into the caller object', () => {
    const object = { server: { port: 1234 } };
    loadConfig({ object, env: {} });
    expect(object).toEqual({ server: { port: 1234 } });
  });

  it('defaults instanceId to hostname-pid and keeps an explicit one', () => {
    expect(defaultConfig({}, { hostname: 'host-a', pid: 42 }).promotion.instanceId).toBe(
      'host-a-42',
    );
    expect(defaultConfig({ promotion: { instanceId: 'replica-1' } }).promotion.instanceId).toBe(
      'replica-1',
    );
    expect(defaultConfig().promotion.instanceId).toBe(`${hostname()}-${String(process.pid)}`);
  });

  it('defaults leader election to client-go timings and a per-process identity', () => {
    const config = defaultConfig({}, { hostname: 'gateway-7d9f-x2k' });
    expect(config.leaderElection).toEqual({
      enabled: true,
      namespace: 'flux-system',
      name: 'promotion-gateway-resync',
      identity: expect.stringMatching(/^gateway-7d9f-x2k-[0-9a-f]{6}$/) as unknown,
      leaseDurationMs: 15000,
      renewDeadlineMs: 10000,
      retryPeriodMs: 2000,
    });
    // A restarted pod keeps its name, not its identity.
    expect(defaultConfig({}, { hostname: 'gw' }).leaderElection.identity).not.toBe(
      defaultConfig({}, { hostname: 'gw' }).leaderElection.identity,
    );
    const explicit = defaultConfig({
      pipelineNamespaces: ['team-a'],
      leaderElection: { namespace: 'promotion-system', identity: 'gw-0', enabled: false },
    });
    expect(explicit.leaderElection).toMatchObject({
      enabled: false,
      namespace: 'promotion-system',
      identity: 'gw-0',
    });
    // A tenant's Pipeline namespace is never chosen for the Lease by default.
    expect(defaultConfig({ pipelineNamespaces: ['team-a'] }).leaderElection.namespace).toBe(
      'flux-system',
    );
  });

  it('serves every Pipeline by default, and one shard under a Lease of its own when sharded', () => {
    expect(defaultConfig({}).sharding).toBeUndefined();
    const yaml = `
sharding:
  name: eu
  pipelineSelector: ' tier in (web, api) ,promotion-gateway.io/shard = eu'
leaderElection: { name: gateways }
`;
    const config = loadConfig({ file: tempFile('shard.yaml', yaml), env: {} });
    // Canonical text, as the Pipeline LIST and WATCH send it; the Lease carries the shard.
    expect(config.sharding).toEqual({
      name: 'eu',
      pipelineSelector: 'promotion-gateway.io/shard=eu,tier in (api,web)',
    });
    expect(config.leaderElection.name).toBe('gateways-eu');
    const unlabelled = defaultConfig({
      sharding: { name: 'main', pipelineSelector: '!promotion-gateway.io/shard' },
    });
    expect(unlabelled.sharding?.pipelineSelector).toBe('!promotion-gateway.io/shard');
    expect(unlabelled.leaderElection.name).toBe('promotion-gateway-resync-main');
  });

  it('refuses a shard whose selector or name cannot be used, naming the field', () => {
    const problems = (sharding: { name: string; pipelineSelector: string }, lease?: string) => {
      try {
        defaultConfig({
          sharding,
          ...(lease === undefined ? {} : { leaderElection: { name: lease } }),
        });
      } catch (err) {
        return err instanceof ConfigError ? err.problems : [];
      }
      return [];
    };
    expect(problems({ name: 'eu', pipelineSelector: 'shard in eu' })).toEqual([
      expect.stringMatching(/^config \/sharding\/pipelineSelector: /) as unknown,
    ]);
    expect(problems({ name: 'EU', pipelineSelector: 'shard=eu' })).toEqual([
      expect.stringMatching(/^config \/sharding\/name: /) as unknown,
    ]);
    expect(problems({ name: 'eu', pipelineSelector: '' })).toHaveLength(1);
    expect(
      problems({ name: 'e'.repeat(63), pipelineSelector: 'shard=eu' }, 'l'.repeat(200)),
    ).toEqual([
      'config /sharding/name: makes the Lease name 264 characters long (at most 253 with leaderElection.name)',
    ]);
  });

  it('resolves a relative kubeconfig against the config file folder', () => {
    const file = tempFile('c.yaml', 'management: { kubeconfig: kube/config, context: kind }');
    const config = loadConfig({ file, env: {} });
    expect(config.management.kubeconfig).toBe(join(file, '..', 'kube', 'config'));
    expect(config.management.context).toBe('kind');
  });

  it('accepts a $schema key for editors', () => {
    expect(defaultConfig({ $schema: '../schemas/config.schema.json' }).server.port).toBe(8080);
  });

  it('refuses both a file and an object, or neither', () => {
    expect(() => loadConfig({ env: {} })).toThrow('config: no file or object given');
    expect(() => loadConfig({ file: 'x.yaml', object: {}, env: {} })).toThrow(ConfigError);
  });

  it('refuses an unreadable file, naming it', () => {
    const missing = join(tmpdir(), 'pg-does-not-exist', 'c.yaml');
    expect(() => loadConfig({ file: missing, env: {} })).toThrow(
      `config file "${missing}": cannot read (ENOENT)`,
    );
  });
});
