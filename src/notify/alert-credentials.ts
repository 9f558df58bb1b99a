/**
 * A PromotionAlert's credentials: the Secret its `spec.secretRef` names, in the alert's own
 * namespace, read through the management cluster's client (docs/notifications.md, "The
 * PromotionAlert resource"). A problem names the Secret and the key, never a value; what is
 * read prints as "[secret]" through JSON (so pino) and util.inspect.
 */
import { inspect } from 'node:util';
import type { SecretReader } from '../kube/ports.js';
import type { AlertSpec } from './alert-resource.js';
import {
  decodeAddress,
  decodeSigningKey,
  decodeSigningSecret,
  type Decoded,
} from './alert-secret-keys.js';
import { parseExtraHeaders } from '../outbound/extra-headers.js';
import type { SigningCredentials } from '../outbound/webhook-signing.js';

/** What a delivery uses from the alert's Secret; every field is absent when its key is. */
export interface AlertCredentials extends SigningCredentials {
  /** The Secret's `address` (replaces spec.address): an http(s) URL. */
  address?: string;
  /** Extra HTTP headers (e.g. Authorization), from the `headers` key; names in lower case. */
  headers?: Readonly<Record<string, string>>;
}

/**
 * Why there are no credentials: the Secret is missing (SecretNotFound), one of its keys cannot
 * be used (InvalidSecret), or the API server could not be asked (ReadFailed: try again later).
 */
export type CredentialsProblem = 'SecretNotFound' | 'InvalidSecret' | 'ReadFailed';

/** Credentials, or a one-line, secret-free problem naming the Secret and key. */
export type CredentialsResult =
  | { ok: true; credentials: AlertCredentials }
  | { ok: false; reason: CredentialsProblem; problem: string };

/** The alert's fields credentials are read for (a PromotionAlert has them). */
export interface CredentialedAlert {
  metadata: { namespace: string };
  spec: Pick<AlertSpec, 'secretRef'>;
}

/** What an AlertCredentialsReader needs besides its port. */
export interface CredentialsOptions {
  now: () => number;
  /** A Secret read this recently is not read again; default 10 s. */
  maxAgeMs?: number;
}

interface Cached {
  resourceVersion: string;
  result: CredentialsResult;
  readAt: number;
}

/** Unused cache entries are dropped after this long (a deleted alert's Secret). */
const EVICT_AFTER_MS = 10 * 60_000;

/**
 * Reads and caches alerts' credentials per (namespace, name, resourceVersion) of the Secret:
 * one GET at most every `maxAgeMs` per Secret, its keys decoded again only when it changed.
 */
export class AlertCredentialsReader {
  private readonly cache = new Map<string, Cached>();
  private readonly maxAgeMs: number;
  private lastSweep = -Infinity;

  constructor(
    private readonly secrets: SecretReader,
    private readonly options: CredentialsOptions,
  ) {
    this.maxAgeMs = options.maxAgeMs ?? 10_000;
  }

  /** The credentials of `alert`: none without a secretRef, else its Secret's keys, checked. */
  async readAlertCredentials(alert: CredentialedAlert): Promise<CredentialsResult> {
    const name = alert.spec.secretRef?.name;
    if (name === undefined) return { ok: true, credentials: secret({}) };
    const { namespace } = alert.metadata;
    const key = `${namespace}/${name}`;
    const now = this.options.now();
    this.sweep(now);
    const cached = this.cache.get(key);
    if (cached !== undefined && now - cached.readAt < this.maxAgeMs) return cached.result;
    const read = await this.secrets.get(namespace, name);
    if (!read.ok) {
      const problem = `Secret ${key} (spec.secretRef) cannot be read: ${read.message}`;
      return { ok: false, reason: 'ReadFailed', problem };
    }
    if (read.value === undefined) {
      this.cache.delete(key);
      const problem = `Secret ${key} (spec.secretRef) does not exist`;
      return { ok: false, reason: 'SecretNotFound', problem };
    }
    const { resourceVersion, data } = read.value;
    const result =
      cached?.resourceVersion === resourceVersion ? cached.result : parseAlertSecret(key, data);
    this.cache.set(key, { resourceVersion, result, readAt: now });
    return result;
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < EVICT_AFTER_MS) return;
    this.lastSweep = now;
    for (const [key, entry] of this.cache) {
      if (now - entry.readAt > EVICT_AFTER_MS) this.cache.delete(key);
    }
  }
}

/**
 * The credentials in a Secret's `data` (`secretName` is `namespace/name`, for problems); keys
 * other than address, signingSecret, signingKey and headers are ignored.
 */
export function parseAlertSecret(
  secretName: string,
  data: Readonly<Record<string, Buffer>>,
): CredentialsResult {
  const credentials: AlertCredentials = {};
  const decoded: Decoded<unknown>[] = [];
  const take = <T>(
    bytes: Buffer | undefined,
    decode: (b: Buffer) => Decoded<T>,
    set: (v: T) => void,
  ) => {
    if (bytes === undefined) return;
    const result = decode(bytes);
    decoded.push(result);
    if (result.ok) set(result.value);
  };
  take(data.address, decodeAddress, (v) => (credentials.address = v));
  take(data.signingSecret, decodeSigningSecret, (v) => (credentials.signingSecret = v));
  take(data.signingKey, decodeSigningKey, (v) => (credentials.signingKey = v));
  take(
    data.headers,
    (bytes) => parseExtraHeaders(bytes.toString('utf8')),
    (v) => (credentials.headers = secret(v)),
  );
  const problems = decoded.flatMap((d) => (d.ok ? [] : [d.problem]));
  if (problems.length > 0) {
    const problem = `Secret ${secretName} (spec.secretRef): ${problems.join('; ')}`;
    return { ok: false, reason: 'InvalidSecret', problem };
  }
  return { ok: true, credentials: secret(credentials) };
}

const REDACTED = '[secret]';

/** Makes an object print as "[secret]" through JSON.stringify and util.inspect. */
function secret<T extends object>(object: T): T {
  Object.defineProperty(object, 'toJSON', { value: () => REDACTED });
  Object.defineProperty(object, inspect.custom, { value: () => REDACTED });
  return object;
}
