/**
 * A throw-away self-signed certificate for 127.0.0.1/localhost, made at start-up with
 * node:crypto and a minimal DER encoder. It exists because kubectl (client-go) never sends
 * bearer tokens over plain HTTP: to test auth with kubectl the simulator must speak TLS.
 * The key never leaves the process; the kubeconfig carries only the certificate.
 */
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';

/** PEM certificate and key for an HTTPS server, plus the certificate as kubeconfig CA data. */
export interface SimCertificate {
  cert: string;
  key: string;
  /** base64 of the PEM certificate, for `certificate-authority-data`. */
  caData: string;
}

function der(tag: number, content: Buffer): Buffer {
  const n = content.length;
  let len: Buffer;
  if (n < 0x80) len = Buffer.from([n]);
  else if (n < 0x100) len = Buffer.from([0x81, n]);
  else len = Buffer.from([0x82, n >> 8, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), len, content]);
}

const seq = (...parts: Buffer[]): Buffer => der(0x30, Buffer.concat(parts));

function oid(dotted: string): Buffer {
  const [a = 0, b = 0, ...rest] = dotted.split('.').map(Number);
  const bytes = [a * 40 + b];
  for (const n of rest) {
    const chunk = [n & 0x7f];
    for (let v = n >> 7; v > 0; v >>= 7) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return der(0x06, Buffer.from(bytes));
}

function utcTime(d: Date): Buffer {
  const p = (n: number): string => String(n).padStart(2, '0');
  const s = `${p(d.getUTCFullYear() % 100)}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}Z`;
  return der(0x17, Buffer.from(s, 'ascii'));
}

function name(cn: string): Buffer {
  return seq(der(0x31, seq(oid('2.5.4.3'), der(0x0c, Buffer.from(cn, 'utf8')))));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return critical
    ? seq(oid(id), der(0x01, Buffer.from([0xff])), der(0x04, value))
    : seq(oid(id), der(0x04, value));
}

function pem(label: string, body: Buffer): string {
  const lines = body.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

/** Creates an ECDSA P-256 certificate valid for 127.0.0.1 and localhost for ten years. */
export function selfSignedCertificate(now = new Date()): SimCertificate {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const serialBytes = randomBytes(16);
  // DER INTEGER: positive (top bit clear) and minimal (no leading 0x00 before a byte < 0x80),
  // else OpenSSL rejects the certificate (about one in 256 serials did).
  serialBytes[0] = ((serialBytes[0] ?? 0) & 0x7f) | 0x01;
  const sigAlg = seq(oid('1.2.840.10045.4.3.2'));
  const notBefore = new Date(now.getTime() - 3600_000);
  const notAfter = new Date(now.getTime() + 10 * 365 * 86400_000);
  const san = seq(
    der(0x87, Buffer.from([127, 0, 0, 1])),
    der(0x82, Buffer.from('localhost', 'ascii')),
  );
  const extensions = seq(
    extension('2.5.29.19', true, seq(der(0x01, Buffer.from([0xff])))),
    extension('2.5.29.15', true, der(0x03, Buffer.from([0x02, 0x84]))),
    extension('2.5.29.37', false, seq(oid('1.3.6.1.5.5.7.3.1'))),
    extension('2.5.29.17', false, san),
  );
  const tbs = seq(
    der(0xa0, der(0x02, Buffer.from([2]))),
    der(0x02, serialBytes),
    sigAlg,
    name('kube-sim'),
    seq(utcTime(notBefore), utcTime(notAfter)),
    name('kube-sim'),
    spki,
    der(0xa3, extensions),
  );
  const signature = sign('sha256', tbs, privateKey);
  const certDer = seq(tbs, sigAlg, der(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const cert = pem('CERTIFICATE', certDer);
  const key = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  return { cert, key, caData: Buffer.from(cert).toString('base64') };
}
