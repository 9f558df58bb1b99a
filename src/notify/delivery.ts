/**
 * One delivery attempt: a formatted event POSTed to the alert's receiver, and what came of it
 * in the outbox's words (src/notify/alert-progress.ts AttemptResult). Details name the HTTP
 * status, the network error's code, or the class of an address the connection refused
 * (src/egress) only: never the URL or its host (a Slack or Teams URL is a secret), a header, or
 * the receiver's body, which is never read.
 */
import { refusalIn } from '../egress/address-guard.js';
import { CLASS_PHRASES } from '../egress/ip-address.js';
import { retryAfter } from '../forge/forge-answers.js';
import type { AttemptResult } from './alert-progress.js';

/** The fetch deliveries use; injected so tests can stand in for the network. */
export type DeliveryFetch = (url: string, init: RequestInit) => Promise<Response>;

/** One request to send. */
export interface DeliveryRequest {
  url: string;
  headers: Readonly<Record<string, string>>;
  body: string;
  timeoutMs: number;
}

/** POSTs `request` once; never rejects. */
export async function attemptDelivery(
  request: DeliveryRequest,
  fetchImpl: DeliveryFetch,
  now: () => number,
): Promise<AttemptResult> {
  const { url, headers } = withoutUserinfo(request);
  let response: Response;
  try {
    response = await fetchImpl(url, {
      method: 'POST',
      headers,
      body: request.body,
      // A redirect would re-send a signed event somewhere the alert never named.
      redirect: 'manual',
      signal: AbortSignal.timeout(request.timeoutMs),
    });
  } catch (error) {
    return { kind: 'Failed', detail: networkDetail(error) };
  }
  // The body is never read: it is not ours to log, and cancelling frees the connection.
  await response.body?.cancel().catch(() => undefined);
  return classify(response, now());
}

/** A receiver's answer as an attempt's result. */
export function classify(
  response: Pick<Response, 'status' | 'headers'>,
  now: number,
): AttemptResult {
  const { status } = response;
  const detail = `HTTP ${String(status)}`;
  if (status >= 200 && status < 300) return { kind: 'Delivered', detail };
  if (status === 410) return { kind: 'Gone', detail };
  if (status >= 300 && status < 400) {
    return { kind: 'Failed', detail: `${detail} (redirects are not followed)` };
  }
  const wait = retryAfter(response.headers, now);
  return { kind: 'Failed', detail, ...(wait === undefined ? {} : { retryAfterMs: wait }) };
}

/**
 * The URL without user:password (fetch refuses such URLs), given instead as Basic
 * authorization unless the Secret's headers already authorize: a receiver's URL from a Secret
 * may carry its credentials the way curl takes them.
 */
function withoutUserinfo(request: DeliveryRequest): {
  url: string;
  headers: Record<string, string>;
} {
  const headers = { ...request.headers };
  const parsed = URL.parse(request.url);
  if (parsed === null || (parsed.username === '' && parsed.password === '')) {
    return { url: request.url, headers };
  }
  const user = decodeURIComponent(parsed.username);
  const password = decodeURIComponent(parsed.password);
  parsed.username = '';
  parsed.password = '';
  const authorized = Object.keys(headers).some((name) => name.toLowerCase() === 'authorization');
  if (!authorized) {
    headers.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  }
  return { url: parsed.href, headers };
}

function networkDetail(error: unknown): string {
  if (error instanceof DOMException && error.name === 'TimeoutError') return 'timeout';
  // The connection's own check refused what the host resolved to (a log line: no host).
  const refused = refusalIn(error)?.refusal;
  if (refused !== undefined)
    return `address not allowed: ${refused.verb} ${CLASS_PHRASES[refused.addressClass]}`;
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  return code === undefined ? 'network error' : `network error ${code}`;
}
