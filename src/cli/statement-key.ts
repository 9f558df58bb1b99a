/**
 * What the approvers' commands share: their private key read from a PKCS#8 PEM file, the
 * statement's lifetime, a Pipeline named on the command line and the text they write (as the
 * gateway would take it), each checked with a clear usage error.
 */
import { readFile } from 'node:fs/promises';
import { importPKCS8, type CryptoKey } from 'jose';
import { STATEMENT_ALGORITHMS } from '../auth/statement.js';
import { PLAIN_TEXT_RULE, unsafeCharacterOf } from '../text/text.js';
import { required, UsageError } from './args.js';

/** A statement signing algorithm (EdDSA or ES256). */
export type Algorithm = (typeof STATEMENT_ALGORITHMS)[number];

/** `--alg`'s value (EdDSA when absent), or a UsageError. */
export function algorithm(value: string | undefined): Algorithm {
  const alg = value ?? 'EdDSA';
  if (!(STATEMENT_ALGORITHMS as readonly string[]).includes(alg))
    throw new UsageError(`--alg must be one of ${STATEMENT_ALGORITHMS.join(', ')}`);
  return alg as Algorithm;
}

/** The private key in the PKCS#8 PEM file `--key` names, and the algorithm it signs with. */
export async function signingKey(
  file: string | undefined,
): Promise<{ key: CryptoKey; alg: Algorithm }> {
  const pem = await readFile(required(file, '--key'), 'utf8');
  for (const alg of STATEMENT_ALGORITHMS) {
    try {
      return { key: await importPKCS8(pem, alg), alg };
    } catch {
      continue;
    }
  }
  throw new UsageError('--key must be an Ed25519 or P-256 private key in PKCS#8 PEM');
}

/** `--pipeline`'s NAMESPACE/NAME, or a UsageError. */
export function pipelineOf(value: string | undefined): string {
  const pipeline = required(value, '--pipeline');
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?\/[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(pipeline))
    throw new UsageError('--pipeline must be NAMESPACE/NAME');
  return pipeline;
}

/**
 * `text` (the value of `flag`: a reason, a comment) when the gateway would take it, else a
 * UsageError naming the first control or invisible formatting character it holds.
 */
export function plainText(text: string, flag: string): string {
  const unsafe = unsafeCharacterOf(text);
  if (unsafe !== undefined) throw new UsageError(`${flag} ${PLAIN_TEXT_RULE} (${unsafe})`);
  return text;
}

/** `iat` and `exp` (seconds) of a statement valid for `--ttl` seconds (300 when absent). */
export function lifetime(ttl: string | undefined, now = Date.now()): { iat: number; exp: number } {
  const seconds = Number(ttl ?? '300');
  if (!Number.isInteger(seconds) || seconds < 1)
    throw new UsageError('--ttl must be a whole number of seconds');
  const iat = Math.floor(now / 1000);
  return { iat, exp: iat + seconds };
}

/** POSTs `jws` as `application/jose` to `url`, prints the answer; resolves to its status. */
export async function postStatement(
  url: string,
  jws: string,
  out: NodeJS.WritableStream,
): Promise<number> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/jose' },
    body: jws,
  });
  out.write(`${String(response.status)} ${await response.text()}\n`);
  return response.status;
}
