/**
 * The gateway's one logger. Secrets must never reach log output, so redaction is configured
 * here once, by key name, at every depth of every logged object, child binding and error, and
 * for the credentials of any URL in logged text (src/text/redact-url.ts).
 *
 * Why not pino's own `redact` option: it has no recursive wildcard, so covering nested config
 * and error objects took 40 `*.`-prefixed paths, and its redactor then walked and cloned on
 * every line (about 86 µs per info line) and on every child logger (7-19 µs, and fastify makes
 * one per request). The walk below visits only what is actually logged, copies only the
 * objects on the way to a secret (the caller's objects are never mutated), and has no depth
 * gap: a secret-named key is censored wherever it is.
 */
import { pino } from 'pino';
import type { Bindings, DestinationStream, Level, LogFn, Logger } from 'pino';
import { redactUrls } from './text/redact-url.js';

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

/**
 * Every key whose value is censored, compared case-insensitively (header names arrive in any
 * case from some clients and libraries, e.g. a fetch `Headers` copied into an object).
 */
export const SECRET_NAMES: ReadonlySet<string> = new Set(
  [...SECRET_HEADERS, ...SECRET_KEYS].map((name) => name.toLowerCase()),
);

/** Text that replaces a redacted value. */
export const REDACTED = '[REDACTED]';
/** Text that replaces an object met again inside itself (a cycle). */
const CIRCULAR = '[Circular]';
/**
 * Deeper than this, a value is replaced rather than walked: it bounds the walk, and pino's
 * serializer stops printing at depth 5 anyway, so nothing printable is lost.
 */
const MAX_DEPTH = 10;
const TRUNCATED = '[Truncated]';

function isSecretName(key: string): boolean {
  return SECRET_NAMES.has(key) || SECRET_NAMES.has(key.toLowerCase());
}

/**
 * `value` with every secret-named property censored, and every URL's credentials in its text
 * (see redactUrls), at any depth. Returns `value` itself when
 * nothing needed censoring; otherwise copies of the objects on the way to each secret. Errors
 * are first turned into plain objects by pino's error serializer, so their own properties
 * (e.g. a request's headers on an HTTP error) are walked too.
 */
export function redactSecrets(value: unknown): unknown {
  return redact(value, 0, []);
}

function redact(value: unknown, depth: number, ancestors: object[]): unknown {
  // A URL's credentials (`https://user:password@...`, `?token=...`) in any logged text.
  if (typeof value === 'string') return redactUrls(value);
  if (typeof value !== 'object' || value === null) return value;
  if (ArrayBuffer.isView(value) || value instanceof Date) return value;
  if (ancestors.includes(value)) return CIRCULAR;
  if (depth >= MAX_DEPTH) return TRUNCATED;
  if (value instanceof Error) return redact(pino.stdSerializers.err(value), depth, ancestors);
  // JSON output is what toJSON returns (e.g. a class with its own wire form): walk that.
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') {
    const json: unknown = toJSON.call(value);
    if (json !== value) return redact(json, depth + 1, ancestors);
  }
  ancestors.push(value);
  try {
    if (Array.isArray(value)) return redactArray(value, depth, ancestors);
    return redactObject(value as Record<string, unknown>, depth, ancestors);
  } finally {
    ancestors.pop();
  }
}

function redactArray(value: readonly unknown[], depth: number, ancestors: object[]): unknown {
  let copy: unknown[] | undefined;
  for (let i = 0; i < value.length; i++) {
    const item = value[i];
    const safe = redact(item, depth + 1, ancestors);
    if (safe !== item) {
      copy ??= value.slice();
      copy[i] = safe;
    }
  }
  return copy ?? value;
}

function redactObject(
  value: Record<string, unknown>,
  depth: number,
  ancestors: object[],
): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    const item = value[key];
    const safe =
      isSecretName(key) && item !== undefined ? REDACTED : redact(item, depth + 1, ancestors);
    if (safe !== item) {
      copy ??= { ...value };
      copy[key] = safe;
    }
  }
  return copy ?? value;
}

/** pino's `formatters.log`: every key but `err`, which the err serializer below redacts. */
function redactLogObject(object: Record<string, unknown>): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const key in object) {
    if (key === 'err' || !Object.prototype.hasOwnProperty.call(object, key)) continue;
    const item = object[key];
    const safe = isSecretName(key) && item !== undefined ? REDACTED : redactSecrets(item);
    if (safe !== item) {
      copy ??= { ...object };
      copy[key] = safe;
    }
  }
  return copy ?? object;
}

/** pino's `hooks.logMethod`: the message and its format arguments, URLs' credentials redacted. */
function redactMessages(this: Logger, args: Parameters<LogFn>, method: LogFn): void {
  const safe = args.map((arg: unknown) => (typeof arg === 'string' ? redactUrls(arg) : arg));
  method.apply(this, safe as Parameters<LogFn>);
}

/**
 * A pino logger at `level` writing to `destination` (stdout when absent), with secret
 * redaction always on: log objects, root and child bindings and serialized errors all go
 * through redactSecrets, messages through redactUrls. Tests pass a capturing stream as
 * destination.
 */
export function createLogger(
  level: Level | 'silent' = 'info',
  destination?: DestinationStream,
): GatewayLogger {
  const options = {
    level,
    hooks: { logMethod: redactMessages },
    formatters: { log: redactLogObject, bindings: redactLogObject },
    serializers: { err: (err: unknown) => redactSecrets(pino.stdSerializers.err(err as Error)) },
    base: { service: 'promotion-gateway' },
  };
  const logger = destination === undefined ? pino(options) : pino(options, destination);
  // pino applies formatters.bindings to the root's bindings only (children reset it), so
  // child bindings are redacted here. Children inherit this method through their prototype.
  // Deliberately unbound: each call must run pino's method on the logger it was called on.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const pinoChild = logger.child;
  const redactingChild = function (this: GatewayLogger, bindings: Bindings, opts?: object) {
    return pinoChild.call(this, redactLogObject(bindings), opts);
  };
  logger.child = redactingChild as GatewayLogger['child'];
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const pinoSetBindings = logger.setBindings;
  logger.setBindings = function (this: GatewayLogger, bindings: Bindings) {
    pinoSetBindings.call(this, redactLogObject(bindings));
  };
  return logger;
}

const DEBUG_LEVEL = pino.levels.values.debug ?? 20;

/**
 * Logs a failure as one line at `level`: `fields` plus its `summary` (status, reason and a
 * secret-free message). The error itself, stack and all, goes to debug only: a failing cluster
 * must not turn every retry into forty lines of client internals.
 */
export function logFailure(
  logger: GatewayLogger,
  level: 'debug' | 'warn' | 'error',
  message: string,
  fields: Record<string, unknown>,
  failure: { summary: { reason: string; message: string; status?: number }; err: unknown },
): void {
  const { reason, message: detail, status } = failure.summary;
  logger[level](
    { ...fields, reason, detail, ...(status === undefined ? {} : { status }) },
    message,
  );
  if (logger.isLevelEnabled('debug'))
    logger.debug({ ...fields, err: failure.err }, `${message}: detail`);
}

/**
 * True when `log` prints debug lines. Takes fastify's logger type (which lacks pino's
 * isLevelEnabled) so hot paths can skip building fields nobody will print.
 */
export function debugEnabled(log: { level: string }): boolean {
  return (pino.levels.values[log.level] ?? Infinity) <= DEBUG_LEVEL;
}

const LOG_METHODS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
type LogMethod = (typeof LOG_METHODS)[number];

/**
 * A request logger that makes its real child (with the request's bindings) only when something
 * is logged at an enabled level. Most requests log nothing at the default level, and fastify
 * otherwise builds a child per request, a measurable share of the ingress's CPU under load.
 * Its fatal..trace methods are defined once on the prototype, below the class.
 */
class LazyChildLogger {
  private real: GatewayLogger | undefined;

  constructor(
    private readonly parent: GatewayLogger,
    private readonly bindings: Bindings,
  ) {}

  /** The parent's level: a request logger never logs more than its parent. */
  get level(): string {
    return this.real?.level ?? this.parent.level;
  }

  set level(value: string) {
    this.materialise().level = value;
  }

  silent(): void {
    // Nothing is ever logged at `silent`.
  }

  child(bindings: Bindings, options?: object): GatewayLogger {
    return this.materialise().child(bindings, options);
  }

  isLevelEnabled(level: string): boolean {
    return (this.real ?? this.parent).isLevelEnabled(level);
  }

  /** Logs `args` at `level` through the real child, made now if it does not exist yet. */
  logAt(level: LogMethod, args: unknown[]): void {
    if (!this.isLevelEnabled(level)) return;
    const logger = this.materialise();
    const method: (...a: unknown[]) => void = logger[level];
    method.apply(logger, args);
  }

  private materialise(): GatewayLogger {
    this.real ??= this.parent.child(this.bindings);
    return this.real;
  }
}

for (const level of LOG_METHODS) {
  Object.defineProperty(LazyChildLogger.prototype, level, {
    value(this: LazyChildLogger, ...args: unknown[]): void {
      this.logAt(level, args);
    },
  });
}

/**
 * fastify's `childLoggerFactory`: request loggers that cost nothing until used (see
 * LazyChildLogger). Bindings are still redacted, when the child is made.
 */
export function lazyChildLoggerFactory(logger: GatewayLogger, bindings: Bindings): GatewayLogger {
  return new LazyChildLogger(logger, bindings) as unknown as GatewayLogger;
}
