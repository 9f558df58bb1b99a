/**
 * The address policy for user-written URLs: loopback, link-local, metadata, private, shared,
 * unspecified and API server addresses refused, on the host itself and on every address a name
 * resolves to; opened only by an allow-list entry that writes the address itself; messages that
 * name the scheme, host and class, never the path, query or credentials.
 */
import { describe, expect, it } from 'vitest';
import { fakeResolver, testGuard } from '../../support/address-guard.js';

const NAMES = {
  'receiver.example': ['93.184.216.34'],
  'rebound.example': ['127.0.0.1'],
  'dual.example': ['93.184.216.34', '10.0.0.7'],
  'mixed.example': ['10.0.0.7', '127.0.0.1'],
  'mapped.example': ['::ffff:127.0.0.1'],
  'cloud-meta.example': ['169.254.169.254'],
  'kube.example': ['203.0.113.10'],
  'kube-alias.example': ['203.0.113.10'],
  'metadata.google.internal': ['169.254.169.254'],
};
/** Clusters whose API servers the gateway reaches: one by address, one by name. */
const SERVERS = {
  management: ['https://198.51.100.7:6443'],
  dev: ['https://kube.example:443'],
};
const SETTING = 'notifications.allowedUrlPrefixes';

function guard(prefixes: string[] = []) {
  return testGuard(prefixes, { resolve: fakeResolver(NAMES), servers: SERVERS, setting: SETTING });
}

const hint = `which only an entry of ${SETTING} naming that IP address opens`;

describe('AddressGuard, with no allow-list', () => {
  it.each([
    ['http://127.0.0.1:8080/hooks?key=s3cret', 'http://127.0.0.1:8080/… is a loopback address'],
    ['http://[::1]/s3cret', 'http://[::1]/… is a loopback address'],
    ['http://[::ffff:127.0.0.1]/s3cret', 'http://[::ffff:7f00:1]/… is a loopback address'],
    ['http://2130706433/s3cret', 'http://127.0.0.1/… is a loopback address'],
    [
      'http://169.254.169.254/latest/meta-data/s3cret',
      'http://169.254.169.254/… is a cloud metadata address',
    ],
    ['http://[fd00:ec2::254]/s3cret', 'http://[fd00:ec2::254]/… is a cloud metadata address'],
    ['http://100.100.100.200/s3cret', 'http://100.100.100.200/… is a cloud metadata address'],
    [
      'http://metadata.google.internal/computeMetadata/s3cret',
      'http://metadata.google.internal/… is a cloud metadata address',
    ],
    ['http://169.254.10.1/s3cret', 'http://169.254.10.1/… is a link-local address'],
    ['http://[fe80::1]/s3cret', 'http://[fe80::1]/… is a link-local address'],
    ['http://10.1.2.3/s3cret', 'http://10.1.2.3/… is a private address'],
    ['https://172.20.0.1/s3cret', 'https://172.20.0.1/… is a private address'],
    ['http://192.168.0.10:9000/s3cret', 'http://192.168.0.10:9000/… is a private address'],
    ['http://[fd12::1]/s3cret', 'http://[fd12::1]/… is a private address'],
    ['http://100.64.1.1/s3cret', 'http://100.64.1.1/… is a shared (carrier-grade NAT) address'],
    ['http://0.0.0.0:8080/s3cret', 'http://0.0.0.0:8080/… is an unspecified address'],
    ['http://[::]/s3cret', 'http://[::]/… is an unspecified address'],
    [
      'https://198.51.100.7:6443/api/s3cret',
      'https://198.51.100.7:6443/… is the API server of a cluster the gateway reaches',
    ],
    [
      'https://kube.example/api/s3cret',
      'https://kube.example/… is the API server of a cluster the gateway reaches',
    ],
    ['http://rebound.example/s3cret', 'http://rebound.example/… resolves to a loopback address'],
    ['http://mapped.example/s3cret', 'http://mapped.example/… resolves to a loopback address'],
    ['http://dual.example/s3cret', 'http://dual.example/… resolves to a private address'],
    // The most significant class of all the addresses, whatever their order.
    ['http://mixed.example/s3cret', 'http://mixed.example/… resolves to a loopback address'],
    [
      'http://cloud-meta.example/s3cret',
      'http://cloud-meta.example/… resolves to a cloud metadata address',
    ],
    [
      'https://kube-alias.example/s3cret',
      'https://kube-alias.example/… resolves to the API server of a cluster the gateway reaches',
    ],
  ])('refuses %s: %s', async (address, sentence) => {
    const problem = await guard().problem(new URL(address));
    expect(problem).toBe(`${sentence}, ${hint}`);
    expect(problem).not.toContain('s3cret');
  });

  it('never quotes credentials', async () => {
    const problem = await guard().problem(new URL('http://user:pa55@10.0.0.1/x'));
    expect(problem).toMatch(/^http:\/\/10\.0\.0\.1\/… is a private address/);
    expect(problem).not.toMatch(/user|pa55/);
  });

  it.each([
    'https://receiver.example/hooks',
    'https://93.184.216.34/hooks',
    // The API server's address on another port is not the API server.
    'https://198.51.100.7:8443/hooks',
    'https://kube.example:8443/hooks',
    // A name that does not resolve cannot be connected to: the connection fails, not this.
    'https://unknown.example/hooks',
  ])('lets %s through', async (address) => {
    expect(await guard().check(new URL(address))).toBeUndefined();
  });
});

describe('AddressGuard under an allow-list', () => {
  it('opens an address an entry writes as an IP literal, for the URLs that entry admits', async () => {
    const opened = guard(['http://127.0.0.1:8080/hooks/', 'http://[fd12::1]/', 'http://10.0.0.9/']);
    expect(await opened.check(new URL('http://127.0.0.1:8080/hooks/a'))).toBeUndefined();
    expect(await opened.check(new URL('http://[fd12::1]/x'))).toBeUndefined();
    expect(await opened.check(new URL('http://10.0.0.9/x'))).toBeUndefined();
    // Another port, path or address of the same class is still refused.
    for (const other of [
      'http://127.0.0.1:8081/hooks/a',
      'http://127.0.0.1:8080/admin',
      'http://10.0.0.8/x',
    ])
      expect((await opened.check(new URL(other)))?.verb).toBe('is');
  });

  it('opens an API server only where an entry writes its address', async () => {
    const opened = guard(['https://198.51.100.7:6443/apis/']);
    expect(await opened.check(new URL('https://198.51.100.7:6443/apis/x'))).toBeUndefined();
    expect(await opened.check(new URL('https://198.51.100.7:6443/api/x'))).toMatchObject({
      addressClass: 'api-server',
    });
  });

  it('never opens an internal address by a name, whatever the entry', async () => {
    const named = guard([
      'http://rebound.example/',
      'http://metadata.google.internal/',
      'https://kube.example/',
      'https://kube-alias.example/',
      'http://dual.example/',
    ]);
    const refused = await Promise.all(
      [
        'http://rebound.example/x',
        'http://metadata.google.internal/x',
        'https://kube.example/x',
        'https://kube-alias.example/x',
        'http://dual.example/x',
      ].map(async (address) => (await named.check(new URL(address)))?.addressClass),
    );
    expect(refused).toEqual(['loopback', 'metadata', 'api-server', 'api-server', 'private']);
  });
});

describe('AddressGuard.lookupFor', () => {
  const lookup = (g: ReturnType<typeof guard>, url: string, all: boolean) =>
    new Promise<{ error: NodeJS.ErrnoException | null; address: unknown }>((resolve) => {
      g.lookupFor(new URL(url))(new URL(url).hostname, { all }, (error, address) => {
        resolve({ error, address });
      });
    });

  it('answers with the addresses of a name that may be reached, as dns.lookup does', async () => {
    expect(await lookup(guard(), 'https://receiver.example/', false)).toEqual({
      error: null,
      address: '93.184.216.34',
    });
    expect(await lookup(guard(), 'https://receiver.example/', true)).toEqual({
      error: null,
      address: [{ address: '93.184.216.34', family: 4 }],
    });
  });

  it('fails the lookup of a name resolving to a refused address, naming no path', async () => {
    const { error } = await lookup(
      guard(['http://rebound.example/']),
      'http://rebound.example/s3cret',
      true,
    );
    expect(error).toMatchObject({
      code: 'EADDRNOTALLOWED',
      refusal: { addressClass: 'loopback', verb: 'resolves to' },
    });
    expect(error?.message).toBe(`http://rebound.example/… resolves to a loopback address, ${hint}`);
  });

  it("passes on the resolver's own failure", async () => {
    const { error } = await lookup(guard(), 'http://unknown.example/', false);
    expect(error?.code).toBe('ENOTFOUND');
  });
});
