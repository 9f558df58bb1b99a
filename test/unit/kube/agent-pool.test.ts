import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent, type AgentOptions } from 'node:https';
import type { Duplex } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { AgentPool, fingerprint, PooledAgent } from '../../../src/kube/agent-pool.js';

const CA = '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n';

/** What client-node's applySecurityAuthentication hands `new https.Agent` for a token user. */
function fresh(options: AgentOptions = {}): HttpsAgent {
  return new HttpsAgent({
    ca: Buffer.from(CA),
    cert: undefined,
    key: undefined,
    pfx: undefined,
    passphrase: undefined,
    ...options,
  });
}

/** The smallest socket Node's keepSocketAlive touches. */
function fakeSocket(): Duplex {
  return {
    timeout: 0,
    setKeepAlive: () => undefined,
    unref: () => undefined,
    setTimeout: () => undefined,
  } as unknown as Duplex;
}

describe('AgentPool.swap', () => {
  it('hands out one keep-alive agent for equal options and destroys the fresh one', () => {
    const pool = new AgentPool();
    const first = fresh();
    const destroy = vi.spyOn(first, 'destroy');
    const a = pool.swap(first);
    const b = pool.swap(fresh());
    expect(a).toBeInstanceOf(PooledAgent);
    expect(b).toBe(a);
    expect(destroy).toHaveBeenCalledOnce();
    expect(pool.size).toBe(1);
    const pooled = a as PooledAgent;
    expect(pooled.options).toMatchObject({ keepAlive: true, ca: Buffer.from(CA) });
    expect(pooled.maxSockets).toBe(64);
    expect(pooled.maxFreeSockets).toBe(16);
    pool.clear();
  });

  it('gives different CA, client cert, key, verification or server name different agents', () => {
    const pool = new AgentPool();
    const variants: AgentOptions[] = [
      {},
      { ca: Buffer.from(CA.replace('AAAA', 'BBBB')) },
      { cert: Buffer.from('cert-1') },
      { cert: Buffer.from('cert-2') },
      { cert: Buffer.from('cert-1'), key: Buffer.from('key-1') },
      { cert: Buffer.from('cert-1'), key: Buffer.from('key-2') },
      { rejectUnauthorized: false },
      { rejectUnauthorized: true },
      { servername: 'api.example' },
      { pfx: Buffer.from('pfx'), passphrase: 'secret' },
    ];
    const agents = variants.map((v) => pool.swap(fresh(v)));
    expect(new Set(agents).size).toBe(variants.length);
    expect(pool.size).toBe(variants.length);
    expect(pool.swap(fresh({ cert: Buffer.from('cert-2') }))).toBe(agents[3]);
    pool.clear();
  });

  it('leaves other agents alone: http, https subclasses (proxy agents), pooled, unknown options', () => {
    const pool = new AgentPool();
    class ProxyLikeAgent extends HttpsAgent {}
    const others = [
      new HttpAgent(),
      new ProxyLikeAgent({ ca: CA }),
      new HttpsAgent({ ca: CA, lookup: () => undefined }),
      new HttpsAgent({ ca: [CA, { pem: 'x' }] as unknown as string[] }),
    ];
    for (const agent of others) {
      const destroy = vi.spyOn(agent, 'destroy');
      expect(pool.swap(agent)).toBe(agent);
      expect(destroy).not.toHaveBeenCalled();
    }
    expect(pool.swap(undefined)).toBeUndefined();
    const pooled = pool.swap(fresh());
    expect(pool.swap(pooled)).toBe(pooled);
    expect(pool.size).toBe(1);
    pool.clear();
  });

  it('evicts the least recently used agent beyond maxAgents and retires it', () => {
    const pool = new AgentPool({ maxAgents: 2 });
    const a = pool.swap(fresh({ servername: 'a' })) as PooledAgent;
    const b = pool.swap(fresh({ servername: 'b' })) as PooledAgent;
    expect(pool.swap(fresh({ servername: 'a' }))).toBe(a); // a is now the most recent
    const destroyB = vi.spyOn(b, 'destroy');
    const c = pool.swap(fresh({ servername: 'c' })) as PooledAgent;
    expect(pool.size).toBe(2);
    expect(b.isRetired()).toBe(true);
    expect(destroyB).toHaveBeenCalledOnce(); // idle, so destroyed at once
    expect(a.isRetired()).toBe(false);
    expect(pool.swap(fresh({ servername: 'a' }))).toBe(a);
    expect(pool.swap(fresh({ servername: 'c' }))).toBe(c);
    const b2 = pool.swap(fresh({ servername: 'b' }));
    expect(b2).not.toBe(b);
    expect(a.isRetired()).toBe(true);
    pool.clear();
    expect(pool.size).toBe(0);
    expect(c.isRetired()).toBe(true);
  });
});

describe('PooledAgent', () => {
  it('keeps sockets alive until retired, then parks none', () => {
    const agent = new PooledAgent({ keepAlive: true, timeout: 30_000 });
    expect(agent.keepSocketAlive(fakeSocket())).toBe(true);
    agent.retire();
    expect(agent.keepSocketAlive(fakeSocket())).toBe(false);
  });
});

describe('fingerprint', () => {
  it('is a sha256 hex digest that never contains the options it hashes', () => {
    const key = 'PRIVATE-KEY-MATERIAL';
    const print = fingerprint({ key, ca: Buffer.from(CA) });
    expect(print).toMatch(/^[0-9a-f]{64}$/);
    expect(print).not.toContain(key);
  });

  it('ignores undefined options and key order, but not types or boundaries', () => {
    expect(fingerprint({ ca: 'x', cert: undefined })).toBe(fingerprint({ ca: 'x' }));
    expect(fingerprint({ a: 1, b: 'x' })).toBe(fingerprint({ b: 'x', a: 1 }));
    expect(fingerprint({ ab: 'c' })).not.toBe(fingerprint({ a: 'bc' }));
    expect(fingerprint({ ca: 'x' })).not.toBe(fingerprint({ ca: Buffer.from('x') }));
    expect(fingerprint({ ca: ['x', 'y'] })).not.toBe(fingerprint({ ca: ['xy'] }));
    expect(fingerprint({ ca: ['x'] })).not.toBe(fingerprint({ ca: 'x' }));
    expect(fingerprint({ r: false })).not.toBe(fingerprint({ r: 'false' }));
    expect(fingerprint({ p: null })).not.toBe(fingerprint({}));
  });

  it('refuses functions and objects it cannot compare', () => {
    expect(fingerprint({ lookup: () => undefined })).toBeUndefined();
    expect(fingerprint({ secureContext: {} })).toBeUndefined();
    expect(fingerprint({ ca: [{ pem: 'x' }] })).toBeUndefined();
  });
});
