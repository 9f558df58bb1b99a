/**
 * The address classes that a URL someone other than the operator wrote (a PromotionAlert's
 * address, an HTTP check's URL) may not reach by default, and the canonical form addresses are
 * compared in: an IPv4-mapped IPv6 address is its IPv4 address, so `::ffff:127.0.0.1` is
 * loopback like `127.0.0.1`. Pure.
 */
import { BlockList, isIP } from 'node:net';

/** A class of addresses refused by default; `api-server` is decided by the ApiServerBook. */
export type AddressClass =
  'metadata' | 'api-server' | 'unspecified' | 'loopback' | 'link-local' | 'private' | 'shared';

/** How a message names each class; most significant first, the order a message picks by. */
export const CLASS_PHRASES: Readonly<Record<AddressClass, string>> = {
  metadata: 'a cloud metadata address',
  'api-server': 'the API server of a cluster the gateway reaches',
  unspecified: 'an unspecified address',
  loopback: 'a loopback address',
  'link-local': 'a link-local address',
  private: 'a private address',
  shared: 'a shared (carrier-grade NAT) address',
};

type Subnet = readonly [network: string, prefix: number];

// In the order a message names them: the metadata addresses lie inside link-local, shared and
// private ranges, and are worth naming as what they are.
const RANGES: readonly (readonly [Exclude<AddressClass, 'api-server'>, readonly Subnet[]])[] = [
  [
    'metadata',
    [
      ['169.254.169.254', 32],
      ['100.100.100.200', 32],
      ['fd00:ec2::254', 128],
    ],
  ],
  // 0.0.0.0/8 is "this network": Linux connects 0.0.0.0 to the host itself.
  [
    'unspecified',
    [
      ['0.0.0.0', 8],
      ['::', 128],
    ],
  ],
  [
    'loopback',
    [
      ['127.0.0.0', 8],
      ['::1', 128],
    ],
  ],
  [
    'link-local',
    [
      ['169.254.0.0', 16],
      ['fe80::', 10],
    ],
  ],
  [
    'private',
    [
      ['10.0.0.0', 8],
      ['172.16.0.0', 12],
      ['192.168.0.0', 16],
      ['fc00::', 7],
    ],
  ],
  ['shared', [['100.64.0.0', 10]]],
];

/** Host names that are a metadata service whatever they resolve to. */
const METADATA_NAMES: ReadonlySet<string> = new Set(['metadata.google.internal']);

const LISTS = RANGES.map(([addressClass, subnets]) => {
  const list = new BlockList();
  for (const [network, prefix] of subnets)
    list.addSubnet(network, prefix, isIP(network) === 6 ? 'ipv6' : 'ipv4');
  return [addressClass, list] as const;
});

/**
 * `text` (an IP address, bracketed or not, with or without an IPv6 zone) in canonical form:
 * IPv4 dotted, IPv6 compressed in lower case, IPv4-mapped IPv6 as its IPv4 address; undefined
 * when `text` is not an IP address (a host name).
 */
export function canonicalIp(text: string): string | undefined {
  const bare = text.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return bare;
  if (family !== 6) return undefined;
  // The WHATWG serializer compresses and writes a mapped address as ::ffff:hhhh:hhhh.
  const compressed = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(compressed);
  if (mapped === null) return compressed;
  const [high, low] = [parseInt(mapped[1] ?? '0', 16), parseInt(mapped[2] ?? '0', 16)];
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** The refused class of a canonical IP address, or undefined for any other address. */
export function addressClass(ip: string): Exclude<AddressClass, 'api-server'> | undefined {
  const type = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
  return LISTS.find(([, list]) => list.check(ip, type))?.[0];
}

/** A host name as compared: lower case, without the root's trailing dot. */
export function canonicalName(host: string): string {
  return host.toLowerCase().replace(/\.$/, '');
}

/** Whether the host name `name` (canonical) is a metadata service's. */
export function isMetadataName(name: string): boolean {
  return METADATA_NAMES.has(name);
}
