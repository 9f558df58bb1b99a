/**
 * A fetch for user-written URLs over node:http(s), under an AddressGuard: an IP literal is
 * checked before the request, a host name in the connection's own lookup, on every address it
 * resolves to, so the address connected to is the address checked. Redirects are never followed
 * (a 3xx is answered as it is). The subset of fetch the gateway uses: a method, headers, a
 * string body and an abort signal; answers are web Responses. Built on node:http rather than
 * the global fetch, which would load undici's WebAssembly parser into the gateway.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import type { FetchLike } from '../outbound/fetch-like.js';
import { AddressNotAllowedError, type AddressGuard } from './address-guard.js';

// No body may come with these statuses (RFC 9110); a Response refuses one.
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/** A fetch-like over node:http(s) that calls only what `guard` allows; keeps connections alive. */
export function guardedFetch(guard: AddressGuard): FetchLike {
  const agents = {
    http: new HttpAgent({ keepAlive: true }),
    https: new HttpsAgent({ keepAlive: true }),
  };
  return async (url, init) => {
    const target = new URL(url);
    if (target.protocol !== 'http:' && target.protocol !== 'https:')
      throw new TypeError('fetch failed', { cause: new Error('only http and https are fetched') });
    const early = await guard.withoutDns(target);
    if (early !== undefined && early !== 'resolve') {
      const refused = new AddressNotAllowedError(early, guard.describe(early));
      throw new TypeError('fetch failed', { cause: refused });
    }
    const agent = target.protocol === 'https:' ? agents.https : agents.http;
    return send(target, init, { agent, lookup: guard.lookupFor(target) });
  };
}

/** One request; rejects as fetch does (the signal's reason, or a TypeError with the cause). */
function send(
  target: URL,
  init: RequestInit,
  via: { agent: HttpAgent; lookup: LookupFunction },
): Promise<Response> {
  const body = bodyOf(init.body);
  const method = (init.method ?? 'GET').toUpperCase();
  const headers = Object.fromEntries(new Headers(init.headers));
  if (body !== undefined) headers['content-length'] = String(body.byteLength);
  const signal = init.signal ?? undefined;
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        protocol: target.protocol,
        hostname: target.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: target.port === '' ? undefined : Number(target.port),
        path: `${target.pathname}${target.search}`,
        method,
        headers,
        agent: via.agent,
        lookup: via.lookup,
        ...(signal === undefined ? {} : { signal }),
      },
      (res) => {
        try {
          resolve(responseOf(res, method));
        } catch (error) {
          res.destroy();
          reject(new TypeError('fetch failed', { cause: error }));
        }
      },
    );
    req.on('error', (error) => {
      // As fetch: an abort rejects with the signal's reason (a TimeoutError for a timeout).
      const reason: unknown = signal?.aborted === true ? signal.reason : undefined;
      reject(reason instanceof Error ? reason : new TypeError('fetch failed', { cause: error }));
    });
    req.end(body);
  });
}

function bodyOf(body: RequestInit['body']): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof Uint8Array) return Buffer.from(body);
  throw new TypeError('only a string or bytes can be sent');
}

/** The answer as a web Response; throws for a status a Response cannot have. */
function responseOf(res: IncomingMessage, method: string): Response {
  const status = res.statusCode ?? 0;
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    for (const one of Array.isArray(value) ? value : [value]) {
      if (one !== undefined) headers.append(name, one);
    }
  }
  if (NULL_BODY_STATUSES.has(status) || method === 'HEAD') {
    res.resume();
    return new Response(null, { status, headers });
  }
  return new Response(Readable.toWeb(res) as ReadableStream<Uint8Array>, { status, headers });
}
