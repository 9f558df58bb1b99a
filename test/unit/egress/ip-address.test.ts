/**
 * The address classes refused by default, on every form an address can take: IPv4, IPv6,
 * IPv4-mapped IPv6 (written dotted or in hex), bracketed, with a zone; and the addresses
 * around each range's edges, which are not refused.
 */
import { describe, expect, it } from 'vitest';
import { addressClass, canonicalIp } from '../../../src/egress/ip-address.js';

const classOf = (text: string) => {
  const ip = canonicalIp(text);
  if (ip === undefined) throw new Error(`${text} is not an IP address`);
  return addressClass(ip);
};

describe('canonicalIp', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['[::1]', '::1'],
    ['0:0:0:0:0:0:0:1', '::1'],
    ['::ffff:127.0.0.1', '127.0.0.1'],
    ['[::ffff:7f00:1]', '127.0.0.1'],
    ['::FFFF:A9FE:A9FE', '169.254.169.254'],
    ['FD00:EC2:0::254', 'fd00:ec2::254'],
    ['fe80::1%eth0', 'fe80::1'],
  ])('writes %s as %s', (text, canonical) => {
    expect(canonicalIp(text)).toBe(canonical);
  });

  it.each(['localhost', 'example.com', '', '127.1', '::ffff:127.0.0.1:80'])(
    'takes %j for a name, not an address',
    (text) => {
      expect(canonicalIp(text)).toBeUndefined();
    },
  );
});

describe('addressClass', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['169.254.0.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['fc00::1', 'private'],
    ['fdff:ffff::1', 'private'],
    ['100.64.0.1', 'shared'],
    ['100.127.255.255', 'shared'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
  ])('%s is %s', (address, expected) => {
    expect(classOf(address)).toBe(expected);
  });

  it.each([
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:a9fe:1', 'link-local'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:172.16.0.1', 'private'],
    ['::ffff:c0a8:101', 'private'],
    ['::ffff:100.64.0.1', 'shared'],
    ['::ffff:100.100.100.200', 'metadata'],
    ['::ffff:0.0.0.0', 'unspecified'],
  ])('the IPv4-mapped %s is %s, as its IPv4 address', (address, expected) => {
    expect(classOf(address)).toBe(expected);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '126.255.255.255',
    '128.0.0.1',
    '169.253.255.255',
    '169.255.0.1',
    '172.15.255.255',
    '172.32.0.1',
    '192.167.1.1',
    '100.63.255.255',
    '100.128.0.1',
    '11.0.0.1',
    '2606:4700::1111',
    'fec0::1',
    '::2',
    '::ffff:8.8.8.8',
  ])('%s is not refused', (address) => {
    expect(classOf(address)).toBeUndefined();
  });
});
