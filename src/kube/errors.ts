import type { ReadFailureReason } from './ports.js';
import { KubeApiError } from './rest.js';

/** A classified Kubernetes call failure; the message holds no credentials or response bodies. */
export interface KubeFailure {
  reason: ReadFailureReason;
  message: string;
  /** HTTP status when the API server answered. */
  status?: number;
}

/**
 * An API server's answer other than 2xx, as rest.ts's KubeApiError (or any Error carrying a
 * numeric HTTP `code` and the answer's `body`) says it: its status and body. Not a
 * DOMException: its `code` is a legacy error number, not an HTTP status.
 */
function apiAnswer(err: unknown): { code: number; body: unknown } | undefined {
  if (err instanceof KubeApiError) return err;
  if (!(err instanceof Error) || err instanceof DOMException || !('body' in err)) return undefined;
  const { code, body } = err as Error & { code?: unknown; body?: unknown };
  return typeof code === 'number' ? { code, body } : undefined;
}

/** Transport failures: the API server could not be reached, or dropped the connection. */
const networkCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'ETIMEDOUT',
]);

/**
 * TLS verification failures of the API server's certificate (Node's OpenSSL codes): no retry
 * or wait mends them, only a kubeconfig whose CA, or a server whose certificate, is right.
 */
const certificateCodes = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/**
 * The read failures of a target (ReadFailureReason) that say its cluster could not be reached or
 * could not serve: not a refusal of the gateway's credentials, a missing object or a missing
 * configuration. ServerError is what a GET gets for a 5xx answer (the 409 and odd 4xx it also
 * covers are no answers to a GET). CertificateRejected: no server the gateway could verify was
 * reached, so nothing is known of the cluster (as when it was counted Unavailable).
 */
export const UNREACHABLE_READS: ReadonlySet<string> = new Set<ReadFailureReason>([
  'Unavailable',
  'Timeout',
  'ServerError',
  'CertificateRejected',
]);

/**
 * Thrown where a request needed a cluster's state now and the read, classified rather than
 * thrown, found the cluster unreachable (see UNREACHABLE_READS). Names the cluster and the
 * reason only: no URL, no credential.
 */
export class ClusterUnavailable extends Error {
  constructor(
    readonly cluster: string,
    readonly reason: string,
  ) {
    super(`cluster ${cluster} could not be read (${reason})`);
    this.name = 'ClusterUnavailable';
  }
}

/**
 * True when `err` says a Kubernetes API server could not serve a call now: ClusterUnavailable,
 * a 429 or 5xx answer, a timeout or abort, a transport failure (refused, reset, unreachable).
 * False for every other answer (404, 409, 401, 403, 4xx) and for anything else, bugs included.
 */
export function isUnavailable(err: unknown): boolean {
  if (err instanceof ClusterUnavailable) return true;
  const answer = apiAnswer(err);
  if (answer !== undefined) return answer.code === 429 || answer.code >= 500;
  const name = err instanceof Error ? err.name : '';
  if (name === 'AbortError' || name === 'TimeoutError') return true;
  const code = errorCode(err);
  return code !== undefined && networkCodes.has(code);
}

/**
 * Turns anything a Kubernetes call can throw into a KubeFailure. The API server's own
 * Status message is kept (it names objects, not secrets); transport errors keep only their code.
 */
export function classifyKubeError(err: unknown): KubeFailure {
  const answer = apiAnswer(err);
  if (answer !== undefined) return fromStatus(answer.code, statusMessage(answer.body));
  const name = err instanceof Error ? err.name : '';
  if (name === 'AbortError' || name === 'TimeoutError') {
    return { reason: 'Timeout', message: 'the request to the cluster timed out' };
  }
  const code = errorCode(err);
  if (code !== undefined && networkCodes.has(code)) {
    return { reason: 'Unavailable', message: `the cluster is unreachable (${code})` };
  }
  if (code !== undefined && certificateCodes.has(code)) {
    return {
      reason: 'CertificateRejected',
      message: `the cluster's TLS certificate was not accepted (${code})`,
    };
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
  return apiAnswer(err)?.code === 409;
}

/** True for a 404 answer. */
export function isNotFound(err: unknown): boolean {
  return apiAnswer(err)?.code === 404;
}

/**
 * A one-line, secret-free summary of any failure, for logs: a Kubernetes answer or transport
 * failure classified as above; anything else (a bug) by its error name only.
 */
export function failureSummary(err: unknown): { reason: string; message: string; status?: number } {
  if (err instanceof ClusterUnavailable) return { reason: err.reason, message: err.message };
  const kube = apiAnswer(err) !== undefined || errorCode(err) !== undefined;
  const name = err instanceof Error ? err.name : typeof err;
  if (kube || name === 'AbortError' || name === 'TimeoutError') return classifyKubeError(err);
  return { reason: 'Internal', message: name };
}
