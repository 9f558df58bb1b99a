/**
 * One HTTP exchange with an API server on Node's own http/https modules: bounded by a timeout
 * whose timer is disarmed as soon as the exchange is over, its answer's body decoded chunk by
 * chunk as it arrives (each Buffer dropped at once), and a GET on a pooled keep-alive
 * connection sent once more when that connection turned out dead.
 *
 * Why a timer of our own rather than `AbortSignal.timeout(ms)`: its timer stays armed for the
 * whole timeout after the call has answered, so at fleet scale tens of thousands of them (a
 * Timeout, its closure and a WeakRef, about 190 bytes each) lived long enough to reach V8's old
 * space. Why the retry: a request can be written to an idle socket the API server (or a load
 * balancer) closed a moment earlier; Node fails it with ECONNRESET or EPIPE and its agent does
 * not retry. A GET changes nothing on the server, so it is sent once more under the same
 * timeout; writes are never retried because the server may have acted on them.
 */
import type { Agent, IncomingMessage } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Scheduler } from '../clock.js';
import { PooledAgent } from './agent-pool.js';

/** What one exchange sends. */
export interface HttpCall {
  method: 'GET' | 'POST' | 'PUT';
  url: URL;
  headers: Record<string, string>;
  agent?: Agent | undefined;
  /** `user:password` for basic authentication, as kubeconfig users with a password have. */
  auth?: string | undefined;
  /** JSON text. */
  body?: string | undefined;
}

/** The answer: its status, and its whole body unless a successful one went to `onText`. */
export interface HttpAnswer {
  status: number;
  text: string;
}

/** The bounds of one exchange. */
export interface CallLimits {
  timeoutMs: number;
  scheduler: Pick<Scheduler, 'setTimer'>;
}

const STALE_SOCKET_CODES = new Set(['ECONNRESET', 'EPIPE']);

/**
 * Sends `call` and reads its answer, all within `limits.timeoutMs` (then it rejects with a
 * TimeoutError); the body is read whole, whatever the status.
 */
export async function exchange(call: HttpCall, limits: CallLimits): Promise<HttpAnswer> {
  const controller = new AbortController();
  // The real scheduler's timer is unref'd, like AbortSignal.timeout's.
  const disarm = limits.scheduler.setTimer(limits.timeoutMs, () => {
    controller.abort(new DOMException('The operation timed out.', 'TimeoutError'));
  });
  const { signal } = controller;
  try {
    let res: IncomingMessage;
    try {
      res = await send(call, signal);
    } catch (err) {
      if (!shouldRetry(call, signal, err)) throw err;
      res = await send(call, signal);
    }
    return await readAnswer(res);
  } catch (err) {
    // An abort while the body is read ends the answer with Node's "aborted" (ECONNRESET),
    // which would read as a dead connection: a timeout must be told apart from that.
    if (signal.aborted) throw signal.reason;
    throw err;
  } finally {
    disarm();
  }
}

/** True for a GET through a pooled agent that failed with ECONNRESET/EPIPE and is not aborted. */
export function shouldRetry(call: HttpCall, signal: AbortSignal, err: unknown): boolean {
  return (
    call.method === 'GET' &&
    call.agent instanceof PooledAgent &&
    !signal.aborted &&
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

/** The answer once its head arrived. */
function send(call: HttpCall, signal: AbortSignal): Promise<IncomingMessage> {
  const headers: Record<string, string | number> = { ...call.headers };
  if (call.body !== undefined) headers['content-length'] = Buffer.byteLength(call.body);
  const request = call.url.protocol === 'http:' ? httpRequest : httpsRequest;
  return new Promise((resolve, reject) => {
    const req = request(call.url, {
      method: call.method,
      headers,
      signal,
      ...(call.agent === undefined ? {} : { agent: call.agent }),
      ...(call.auth === undefined ? {} : { auth: call.auth }),
    });
    // Kept for the whole exchange: an error after the head goes to the body's reader too.
    req.on('error', reject);
    req.once('response', resolve);
    req.end(call.body);
  });
}

async function readAnswer(res: IncomingMessage): Promise<HttpAnswer> {
  const status = res.statusCode ?? 0;
  res.setEncoding('utf8');
  let text = '';
  for await (const chunk of res) text += chunk as string;
  return { status, text };
}
