/**
 * One retry of a GET that failed because its pooled keep-alive connection was dead.
 *
 * Why: with pooled connections (agent-pool.ts) a request can be written to an idle socket the
 * API server (or a load balancer) closed a moment earlier, before this process saw the close.
 * Node then fails it with ECONNRESET ("socket hang up") or EPIPE, and neither Node's agent nor
 * the HTTP library (node-http.ts) retries. A GET changes nothing on the server, so
 * sending it once more (on another or a new connection) is safe; writes are never retried
 * because the server may have acted on them. The library does not tell whether the socket was
 * reused, so any such GET through a pooled agent gets its one retry; a fresh connection that
 * resets just costs one more attempt. The retry keeps the request's abort signal, so the
 * caller's timeout still bounds both attempts.
 */
import {
  HttpMethod,
  Observable,
  type HttpLibrary,
  type RequestContext,
  type ResponseContext,
} from '@kubernetes/client-node';
import { PooledAgent } from './agent-pool.js';
import { NodeHttpLibrary } from './node-http.js';

const STALE_SOCKET_CODES = new Set(['ECONNRESET', 'EPIPE']);

/** An HttpLibrary (per-call `httpApi`) that retries a pooled GET once on a dead connection. */
export class StaleSocketRetry implements HttpLibrary {
  constructor(private readonly inner: HttpLibrary = new NodeHttpLibrary()) {}

  /** Sends through the inner library, retrying once when `shouldRetry` says so. */
  send(request: RequestContext): Observable<ResponseContext> {
    return new Observable(this.sendWithRetry(request));
  }

  private async sendWithRetry(request: RequestContext): Promise<ResponseContext> {
    try {
      return await this.inner.send(request).toPromise();
    } catch (err) {
      if (!shouldRetry(request, err)) throw err;
      return this.inner.send(request).toPromise();
    }
  }
}

/** True for a GET through a pooled agent that failed with ECONNRESET/EPIPE and is not aborted. */
export function shouldRetry(request: RequestContext, err: unknown): boolean {
  return (
    request.getHttpMethod() === HttpMethod.GET &&
    request.getAgent() instanceof PooledAgent &&
    request.getSignal()?.aborted !== true &&
    isStaleSocketError(err)
  );
}

function isStaleSocketError(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; typeof e === 'object' && e !== null && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return STALE_SOCKET_CODES.has(code);
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
