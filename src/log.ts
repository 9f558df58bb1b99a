/**
 * The gateway's one logger. Secrets must never reach log output, so redaction is configured
 * here once, by key name, at every depth where a request, error or config object may carry them.
 */
import { pino } from 'pino';
import type { DestinationStream, Level, Logger } from 'pino';

/** The pino logger type every module receives. */
export type GatewayLogger = Logger;

/** Header names whose values are credentials (lower case, as Node delivers them). */
const SECRET_HEADERS = [
  'authorization',
  'proxy-authorization',
  'x-signature',
  'webhook-signature',
  'cookie',
  'set-cookie',
];

/** Property names that hold secrets wherever they appear in a logged object. */
const SECRET_KEYS = [
  'token',
  'secret',
  'hmacKey',
  'hmacKeys',
  'password',
  'privateKey',
  'clientSecret',
  'accessToken',
  'idToken',
  'refreshToken',
];

/** Prefixes of objects that carry HTTP headers in our log lines and in fastify/pino serializers. */
const HEADER_HOLDERS = ['req.headers', 'request.headers', 'res.headers', 'headers', 'err.headers'];

function bracket(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `["${key}"]`;
}

/**
 * Every pino redaction path we apply. fast-redact has no recursive wildcard, so secret keys are
 * listed at depths 0-4, which covers config objects (config.clusters[i].hmacKeys) and errors.
 */
export const REDACT_PATHS: readonly string[] = (() => {
  const paths: string[] = [];
  for (const holder of HEADER_HOLDERS) {
    for (const header of SECRET_HEADERS) paths.push(`${holder}${bracket(header)}`);
  }
  for (const key of SECRET_KEYS) {
    paths.push(key);
    for (let depth = 1; depth <= 4; depth++) {
      paths.push(`${'*.'.repeat(depth).slice(0, -1)}${bracket(key)}`);
    }
  }
  return paths;
})();

/** Text that replaces a redacted value. */
export const REDACTED = '[REDACTED]';

/**
 * A pino logger at `level` writing to `destination` (stdout when absent), with secret
 * redaction always on. Tests pass a capturing stream as destination.
 */
export function createLogger(
  level: Level | 'silent' = 'info',
  destination?: DestinationStream,
): GatewayLogger {
  const options = {
    level,
    redact: { paths: [...REDACT_PATHS], censor: REDACTED },
    serializers: { err: pino.stdSerializers.err },
    base: { service: 'promotion-gateway' },
  };
  return destination === undefined ? pino(options) : pino(options, destination);
}
