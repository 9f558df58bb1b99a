/**
 * Where a URL that someone other than the operator wrote may make the gateway connect: never to
 * a metadata, unspecified, loopback, link-local, private or shared (CGNAT) address, nor to an
 * API server the gateway reaches (ip-address.ts, api-servers.ts), checked on every address the
 * host resolves to. The operator opens such an address with an allow-list entry that writes it
 * as an IP literal (`http://10.0.4.7:8080/hooks/`): the URL must be admitted by that entry, so
 * scheme, address, port and path are all the operator's. A host name never opens one, whatever
 * it resolves to, so a name whose DNS changes cannot lead the gateway inside. Messages name the
 * URL's scheme and host and the address's class, never its path, query or credentials.
 */
import type { LookupFunction } from 'node:net';
import { admits } from '../outbound/url-policy.js';
import { portOf, systemResolver, type ApiServerBook, type Resolver } from './api-servers.js';
import {
  addressClass,
  canonicalIp,
  canonicalName,
  CLASS_PHRASES,
  isMetadataName,
  type AddressClass,
} from './ip-address.js';

/** Why a URL may not be called: its scheme and host, and what its address is. */
export interface Refusal {
  origin: string;
  /** `is`: the host itself (an IP literal or a name refused as such); else what it resolved to. */
  verb: 'is' | 'resolves to';
  addressClass: AddressClass;
}

/** What a guard needs: the operator's list for these calls and the API servers. */
export interface AddressGuardOptions {
  allowedUrlPrefixes: readonly string[];
  /** The setting's name, for messages: `notifications.allowedUrlPrefixes`. */
  setting: string;
  apiServers: ApiServerBook;
  /** Default: the system's resolver. */
  resolve?: Resolver;
}

/** A connection refused by the address policy; its message is the guard's sentence. */
export class AddressNotAllowedError extends Error {
  /** Like a network error's, so that callers reading `code` see what stopped it. */
  readonly code = 'EADDRNOTALLOWED';

  constructor(
    readonly refusal: Refusal,
    message: string,
  ) {
    super(message);
    this.name = 'AddressNotAllowedError';
  }
}

/** The refusal an error (or the error it wraps, as fetch's do) carries, if any. */
export function refusalIn(error: unknown): AddressNotAllowedError | undefined {
  if (error instanceof AddressNotAllowedError) return error;
  const cause = error instanceof Error ? error.cause : undefined;
  return cause instanceof AddressNotAllowedError ? cause : undefined;
}

/** The address policy for one kind of user-written URL (alerts, or HTTP checks). */
export class AddressGuard {
  readonly allowedUrlPrefixes: readonly string[];
  private readonly resolve: Resolver;

  constructor(private readonly options: AddressGuardOptions) {
    this.allowedUrlPrefixes = options.allowedUrlPrefixes;
    this.resolve = options.resolve ?? systemResolver;
  }

  /**
   * Why `url` may not be called, resolving its host as a connection would, or undefined when
   * it may (a name that does not resolve is not refused here: it cannot be connected to).
   */
  async check(url: URL): Promise<Refusal | undefined> {
    const early = await this.withoutDns(url);
    if (early !== 'resolve') return early;
    let found: readonly { address: string }[];
    try {
      found = await this.resolve(url.hostname);
    } catch {
      return undefined;
    }
    return this.resolvedRefusal(url, found);
  }

  /** check()'s answer as the sentence a status or a check's result shows. */
  async problem(url: URL): Promise<string | undefined> {
    const refusal = await this.check(url);
    return refusal === undefined ? undefined : this.describe(refusal);
  }

  /** A refusal as a sentence naming the scheme, host and class only. */
  describe(refusal: Refusal): string {
    const { origin, verb, addressClass: found } = refusal;
    return `${origin}/… ${verb} ${CLASS_PHRASES[found]}, which only an entry of ${this.options.setting} naming that IP address opens`;
  }

  /**
   * What is refused before any DNS answer: an IP literal outside what the list opens, or a
   * name that is a metadata service or an API server; 'resolve' when the answer decides.
   */
  async withoutDns(url: URL): Promise<Refusal | undefined | 'resolve'> {
    const port = portOf(url);
    const origin = `${url.protocol}//${url.host}`;
    const literal = canonicalIp(url.hostname);
    if (literal !== undefined) {
      const found = await this.classOf(literal, port);
      if (found === undefined || this.opens(url)) return undefined;
      return { origin, verb: 'is', addressClass: found };
    }
    const name = canonicalName(url.hostname);
    if (isMetadataName(name)) return { origin, verb: 'is', addressClass: 'metadata' };
    if (this.options.apiServers.named(name, port))
      return { origin, verb: 'is', addressClass: 'api-server' };
    return 'resolve';
  }

  /**
   * A lookup for connections to `url` (a host name): each address the name resolves to is
   * checked before the connection is made, so no DNS change between a check and the connection
   * can lead elsewhere. A refusal fails the lookup with an AddressNotAllowedError.
   */
  lookupFor(url: URL): LookupFunction {
    return (hostname, options, callback) => {
      const answer = async () => {
        const all = await this.resolve(hostname);
        const wanted = all.filter((a) => !options.family || a.family === options.family);
        const refusal = await this.resolvedRefusal(url, wanted);
        if (refusal !== undefined)
          throw new AddressNotAllowedError(refusal, this.describe(refusal));
        return wanted;
      };
      answer().then(
        (found) => {
          const [first] = found;
          if (options.all === true) callback(null, [...found]);
          else if (first === undefined) callback(notFound(hostname), '', 0);
          else callback(null, first.address, first.family);
        },
        (error: unknown) => {
          callback(error as NodeJS.ErrnoException, '', 0);
        },
      );
    };
  }

  /** The most significant class among the addresses (as CLASS_PHRASES orders them), if any. */
  private async resolvedRefusal(
    url: URL,
    found: readonly { address: string }[],
  ): Promise<Refusal | undefined> {
    const port = portOf(url);
    const classes = await Promise.all(
      found.map(async ({ address }) => {
        const ip = canonicalIp(address);
        return ip === undefined ? undefined : await this.classOf(ip, port);
      }),
    );
    const refused = (Object.keys(CLASS_PHRASES) as AddressClass[]).find((c) => classes.includes(c));
    if (refused === undefined) return undefined;
    return { origin: `${url.protocol}//${url.host}`, verb: 'resolves to', addressClass: refused };
  }

  private async classOf(ip: string, port: number): Promise<AddressClass | undefined> {
    const fixed = addressClass(ip);
    if (fixed === 'metadata') return fixed;
    if (await this.options.apiServers.at(ip, port)) return 'api-server';
    return fixed;
  }

  /** Whether an allow-list entry admits `url`, whose host is an IP literal, so names it. */
  private opens(url: URL): boolean {
    return this.allowedUrlPrefixes.some((prefix) => admits(prefix, url));
  }
}

function notFound(hostname: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
}
