/**
 * Maps every failure (ours, fastify's, a plugin's, a thrown bug, a malformed HTTP message) to
 * the error-code registry. 5xx answers carry only the registry's fixed text; the detail goes to
 * the log, never to the client.
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ErrorCodes, GatewayError, errorBody } from './http-errors.js';
import type { ErrorCode } from './http-errors.js';
import { failureSummary, isUnavailable } from '../kube/errors.js';
import { StatusWritesHeld } from '../kube/status-writer.js';
import { logFailure, type GatewayLogger } from '../log.js';

/** fastify error codes with a precise registry equivalent. */
const FASTIFY_CODES: ReadonlyMap<string, ErrorCode> = new Map<string, ErrorCode>([
  ['FST_ERR_CTP_INVALID_MEDIA_TYPE', 'UnsupportedMediaType'],
  ['FST_ERR_CTP_BODY_TOO_LARGE', 'PayloadTooLarge'],
  ['FST_ERR_CTP_INVALID_CONTENT_LENGTH', 'BadRequest'],
  ['FST_ERR_CTP_EMPTY_JSON_BODY', 'InvalidJson'],
  ['FST_ERR_CTP_INVALID_JSON_BODY', 'InvalidJson'],
  ['FST_ERR_BAD_URL', 'BadRequest'],
  ['FST_ERR_ASYNC_CONSTRAINT', 'BadRequest'],
]);

/** Fallback by HTTP status for errors that carry only a status code (plugins, http-errors). */
const STATUS_CODES: Readonly<Record<number, ErrorCode>> = {
  400: 'BadRequest',
  401: 'Unauthenticated',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  408: 'RequestTimeout',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  429: 'RateLimited',
  503: 'NotReady',
};

/** Retry-After of a StatusHeld answer: the CRD is re-checked every resync interval. */
const STATUS_HELD_RETRY_S = 60;

/**
 * Retry-After of an Unavailable answer, in seconds. An API server that refuses, resets, times
 * out or answers 429/5xx is restarting, failing over or shedding load; the gateway's own
 * Pipeline watch retries at most 2 s apart and re-checks what waited once it answers
 * (docs/architecture.md, "Failure handling"). 5 s lets a caller's retry come after that, and
 * keeps callers' retries from adding much load to an API server that sheds it.
 */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

function statusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const status = (error as { statusCode?: unknown }).statusCode;
  return typeof status === 'number' ? status : undefined;
}

/** The registry error for anything thrown; unknown errors and 5xx statuses become Internal. */
export function toGatewayError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  // The installed CRD would prune what a write records (see CrdGuard): nothing was written.
  if (error instanceof StatusWritesHeld)
    return new GatewayError('StatusHeld', undefined, { retryAfterSeconds: STATUS_HELD_RETRY_S });
  const fastifyCode = (error as Partial<FastifyError> | undefined)?.code;
  const mapped = fastifyCode === undefined ? undefined : FASTIFY_CODES.get(fastifyCode);
  if (mapped !== undefined) return new GatewayError(mapped);
  if ((error as Partial<FastifyError> | undefined)?.validation !== undefined) {
    return new GatewayError('BadRequest');
  }
  const status = statusOf(error);
  const byStatus = status === undefined ? undefined : STATUS_CODES[status];
  if (byStatus !== undefined) return new GatewayError(byStatus);
  if (status !== undefined && status >= 400 && status < 500) return new GatewayError('BadRequest');
  // After the statuses: a caller's own broken connection is a fastify error with a statusCode,
  // never a Kubernetes call's failure, even when its code reads ECONNRESET.
  if (status === undefined && isUnavailable(error))
    return new GatewayError('Unavailable', undefined, {
      retryAfterSeconds: UNAVAILABLE_RETRY_AFTER_SECONDS,
    });
  return new GatewayError('Internal');
}

/**
 * Logs a request answered Unavailable, at warn (the cluster's state, not a gateway fault): the
 * classified, secret-free summary of what failed; the error itself only at debug.
 */
export function logUnavailable(
  log: GatewayLogger,
  fields: Record<string, unknown>,
  error: unknown,
): void {
  const summary = failureSummary(error);
  logFailure(log, 'warn', 'request failed: a Kubernetes API is unavailable', fields, {
    summary,
    err: error,
  });
}

/** Sends the registry body for `error` (and Retry-After when it has one). */
export function sendError(reply: FastifyReply, error: GatewayError): FastifyReply {
  if (error.retryAfterSeconds !== undefined) {
    void reply.header('retry-after', String(error.retryAfterSeconds));
  }
  return reply.code(error.status).send(errorBody(error.code, error.detail));
}

function handleError(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
  pipelineNotFound?: string,
): FastifyReply {
  const thrown = toGatewayError(error);
  const mapped =
    pipelineNotFound !== undefined &&
    thrown.code === 'NotFound' &&
    thrown.detail === undefined &&
    request.url.startsWith('/v1/pipelines/')
      ? new GatewayError('NotFound', pipelineNotFound)
      : thrown;
  const fields = { route: request.routeOptions.url, subject: request.identity?.subject };
  if (mapped.code === 'Unavailable') {
    logUnavailable(request.log as GatewayLogger, fields, error);
  } else if (mapped.status >= 500 && mapped.code === 'Internal') {
    const summary = failureSummary(error);
    logFailure(request.log as GatewayLogger, 'error', 'request failed', fields, {
      summary,
      err: error,
    });
  } else {
    request.log.debug({ code: mapped.code }, 'request rejected');
  }
  return sendError(reply, mapped);
}

/**
 * HTTP/1.1 requires Host (RFC 9112 3.2); Node would refuse its absence itself, with an empty
 * body, so the server lets it through (requireHostHeader: false) and this refuses it with the
 * registry's body. Callback style: it runs on every request.
 */
function requireHost(request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) {
  const { raw } = request;
  const http11 =
    raw.httpVersionMajor > 1 || (raw.httpVersionMajor === 1 && raw.httpVersionMinor >= 1);
  if (http11 && raw.headers.host === undefined)
    done(new GatewayError('BadRequest', 'The request has no Host header.'));
  else done();
}

/**
 * What a shard's gateway answers, instead of the registry's bare text, to a request about a
 * Pipeline it does not hold (whether it exists in another shard, is out of the caller's scope or
 * does not exist at all, the same words): which Pipelines it serves, and where the others are.
 */
export function shardNotFound(sharding: { name: string; pipelineSelector: string }): string {
  return `No such resource in shard ${sharding.name}, which serves the Pipelines labelled ${sharding.pipelineSelector}; another shard's Pipeline is answered by that shard's gateway.`;
}

/**
 * Installs the global error and not-found handlers and the Host check on the root instance.
 * `pipelineNotFound` (a shard's, see shardNotFound) replaces the message of a 404 under
 * /v1/pipelines/.
 */
export function installErrorHandling(app: FastifyInstance, pipelineNotFound?: string): void {
  app.setErrorHandler((error, request, reply) =>
    handleError(error, request, reply, pipelineNotFound),
  );
  app.setNotFoundHandler((_request, reply) => sendError(reply, new GatewayError('NotFound')));
  app.addHook('onRequest', requireHost);
  trackResponses(app);
}

/** fastify's `frameworkErrors` option: malformed URLs and the like answer 400 from the registry. */
export function frameworkErrorHandler(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  void handleError(error, request, reply);
}

const REASON_PHRASES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  408: 'Request Timeout',
};

/** The responses of each connection not finished yet (a live stream stays here while open). */
const open = new WeakMap<Socket, Set<ServerResponse>>();

/**
 * Keeps each request's response with its connection until it ends, so that
 * createClientErrorHandler never writes an answer into a response under way (a live stream).
 * A response is let go by fastify's onResponse hook (no listener of our own per response, since
 * every request passes here, and held no longer than its request: a response kept until the
 * connection's next request outlived young-generation collections, measured as twice the heap
 * under load); one that never finished (its connection dropped) by the connection's next request,
 * or with the connection.
 */
export function trackResponses(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    const socket = request.raw.socket;
    const responses = open.get(socket);
    if (responses === undefined) {
      open.set(socket, new Set([reply.raw]));
    } else {
      for (const response of responses) if (ended(response)) responses.delete(response);
      responses.add(reply.raw);
    }
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    open.get(request.raw.socket)?.delete(reply.raw);
    done();
  });
}

/**
 * Whether a response has started on `socket` (its head sent, its end not yet): an answer written
 * now would land inside it. One whose head is not sent yet leaves room for Node's own order.
 */
function responseStarted(socket: Socket): boolean {
  for (const response of open.get(socket) ?? []) {
    if (response.headersSent && !ended(response)) return true;
  }
  return false;
}

/** Whether a response is over: ended by its writer, or destroyed with its connection. */
function ended(response: ServerResponse): boolean {
  return response.writableEnded || response.destroyed;
}

/**
 * fastify's `clientErrorHandler` option: HTTP messages too broken to become requests (bad
 * framing, oversized headers, a body that arrives too slowly) still get a registry body, unless
 * a response is already under way on the connection (a garbled message after a request whose
 * live stream has begun): that connection is only closed, never sent a second status line.
 */
export function createClientErrorHandler(
  logger: GatewayLogger,
): (error: Error & { code?: string }, socket: Socket) => void {
  return (error, socket) => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const code: ErrorCode =
      error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'RequestTimeout' : 'BadRequest';
    const status = ErrorCodes[code].status;
    logger.debug({ code, cause: error.code }, 'client error');
    if (socket.writable && !responseStarted(socket)) {
      const body = JSON.stringify(errorBody(code));
      socket.write(
        `HTTP/1.1 ${status} ${REASON_PHRASES[status] ?? 'Error'}\r\n` +
          'Connection: close\r\n' +
          'Content-Type: application/json; charset=utf-8\r\n' +
          `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    }
    socket.destroy();
  };
}
