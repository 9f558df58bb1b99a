import { ApiException } from '@kubernetes/client-node';
import type { ReadFailureReason } from './ports.js';

/** A classified Kubernetes call failure; the message holds no credentials or response bodies. */
export interface KubeFailure {
  reason: ReadFailureReason;
  message: string;
  /** HTTP status when the API server answered. */
  status?: number;
}

const networkCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE']);

/**
 * Turns anything a client-node call can throw into a KubeFailure. The API server's own
 * Status message is kept (it names objects, not secrets); transport errors keep only their code.
 */
export function classifyKubeError(err: unknown): KubeFailure {
  if (err instanceof ApiException) return fromStatus(err.code, statusMessage(err.body));
  const name = err instanceof Error ? err.name : '';
  if (name === 'AbortError' || name === 'TimeoutError') {
    return { reason: 'Timeout', message: 'the request to the cluster timed out' };
  }
  const code = errorCode(err);
  if (code !== undefined && networkCodes.has(code)) {
    return { reason: 'Unavailable', message: `the cluster is unreachable (${code})` };
  }
  return { reason: 'Unavailable', message: 'the cluster request failed' };
}

function fromStatus(status: number, message: string | undefined): KubeFailure {
  const text = message ?? `HTTP ${status}`;
  if (status === 404) return { reason: 'NotFound', message: text, status };
  if (status === 401)
    return {
      reason: 'Unauthorized',
      message: 'the cluster rejected the gateway credentials',
      status,
    };
  if (status === 403) return { reason: 'Forbidden', message: text, status };
  if (status === 409) return { reason: 'ServerError', message: text, status };
  if (status === 429 || status === 503)
    return { reason: 'Unavailable', message: `the cluster answered ${status}`, status };
  if (status >= 500)
    return { reason: 'ServerError', message: `the cluster answered ${status}`, status };
  return { reason: 'ServerError', message: text, status };
}

function statusMessage(body: unknown): string | undefined {
  const parsed: unknown = typeof body === 'string' ? safeParse(body) : body;
  if (typeof parsed === 'object' && parsed !== null && 'message' in parsed) {
    const message = parsed.message;
    if (typeof message === 'string') return message.slice(0, 512);
  }
  return undefined;
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function errorCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 4; depth++) {
    if (typeof e !== 'object') return undefined;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** True for a 409 Conflict answer (a stale resourceVersion precondition). */
export function isConflict(err: unknown): boolean {
  return err instanceof ApiException && err.code === 409;
}

/** True for a 404 answer. */
export function isNotFound(err: unknown): boolean {
  return err instanceof ApiException && err.code === 404;
}

/**
 * A one-line, secret-free summary of any failure, for logs: a Kubernetes answer or transport
 * failure classified as above; anything else (a bug) by its error name only.
 */
export function failureSummary(err: unknown): { reason: string; message: string; status?: number } {
  const kube = err instanceof ApiException || errorCode(err) !== undefined;
  const name = err instanceof Error ? err.name : typeof err;
  if (kube || name === 'AbortError' || name === 'TimeoutError') return classifyKubeError(err);
  return { reason: 'Internal', message: name };
}
