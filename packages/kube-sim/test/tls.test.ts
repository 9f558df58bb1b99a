import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { selfSignedCertificate } from '../src/tls.js';

describe('kube-sim self-signed certificate', () => {
  // The serial is random: a non-minimal DER INTEGER (0x00 then a byte < 0x80) made about one
  // certificate in 256 unparseable, which failed integration tests at random. 1000 tries find
  // that with probability 98%.
  it('always encodes a serial OpenSSL accepts, for localhost and 127.0.0.1', () => {
    for (let i = 0; i < 1000; i++) {
      const certificate = new X509Certificate(selfSignedCertificate().cert);
      expect(certificate.serialNumber).toMatch(/^(?!00)[0-7][0-9A-F]{31}$/);
      expect(certificate.checkIP('127.0.0.1')).toBe('127.0.0.1');
      expect(certificate.checkHost('localhost')).toBe('localhost');
    }
  });
});
