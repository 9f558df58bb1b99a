/**
 * The one mapping of a Kubernetes API that cannot serve a call: 503 Unavailable with
 * Retry-After, the registry's fixed text, a warn line with the classified reason and no URL;
 * every other failure (a 404 or 409 answer, a bug, a caller's broken connection) keeps its own
 * answer, a bug 500 Internal logged at error.
 */
import { ApiException } from '@kubernetes/client-node';
import { fastify, LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCodes, errorBody } from '../../../src/ingress/http-errors.js';
import { installErrorHandling, toGatewayError } from '../../../src/ingress/error-handling.js';
import { ClusterUnavailable } from '../../../src/kube/errors.js';
import { createLogger } from '../../../src/log.js';

const apiAnswer = (code: number) =>
  new ApiException(code, `HTTP-Code: ${String(code)}`, '{"kind":"Status"}', {});

/** What Node throws for a refused connection to an API server. */
function transportError(code: string): Error {
  const error = new Error(`connect ${code} 10.0.0.7:6443`);
  return Object.assign(error, { code, address: '10.0.0.7', port: 6443 });
}

describe('toGatewayError: a Kubernetes API that cannot serve', () => {
  it.each([
    ['a 503 answer', apiAnswer(503)],
    ['a 500 answer', apiAnswer(500)],
    ['a 502 answer', apiAnswer(502)],
    ['a 504 answer', apiAnswer(504)],
    ['a 429 answer', apiAnswer(429)],
    ['a refused connection', transportError('ECONNREFUSED')],
    ['a reset connection', transportError('ECONNRESET')],
    ['a connect timeout', transportError('ETIMEDOUT')],
    ['a reset wrapped as a cause', new Error('fetch failed', { cause: transportError('EPIPE') })],
    ['the call timeout', new DOMException('The operation timed out.', 'TimeoutError')],
    ['an aborted call', new DOMException('This operation was aborted', 'AbortError')],
    ['a target cluster found unreachable', new ClusterUnavailable('staging', 'Unavailable')],
  ])('%s is 503 Unavailable with Retry-After and the fixed text', (_name, error) => {
    const mapped = toGatewayError(error);
    expect(mapped.code).toBe('Unavailable');
    expect(mapped.status).toBe(503);
    expect(mapped.retryAfterSeconds).toBe(5);
    expect(errorBody(mapped.code, mapped.detail)).toEqual({
      code: 'Unavailable',
      message: ErrorCodes.Unavailable.message,
    });
  });

  it.each([
    ['a 404 answer', apiAnswer(404)],
    ['a 409 answer', apiAnswer(409)],
    ['a 401 answer', apiAnswer(401)],
    ['a 403 answer', apiAnswer(403)],
    ['a 422 answer', apiAnswer(422)],
    ['a bug', new TypeError("Cannot read properties of undefined (reading 'status')")],
    ['a bug with a Node error code', transportError('ERR_INVALID_ARG_TYPE')],
    ['a TLS verification failure', transportError('DEPTH_ZERO_SELF_SIGNED_CERT')],
  ])('%s stays 500 Internal', (_name, error) => {
    const mapped = toGatewayError(error);
    expect(mapped.code).toBe('Internal');
    expect(mapped.retryAfterSeconds).toBeUndefined();
  });

  it("keeps a caller's own broken connection a 4xx, whatever its code says", () => {
    const aborted = Object.assign(new Error('aborted'), { code: 'ECONNRESET', statusCode: 400 });
    expect(toGatewayError(aborted).code).toBe('BadRequest');
  });
});

describe('an Unavailable answer through fastify', () => {
  const lines: Record<string, unknown>[] = [];
  let app: FastifyInstance;

  beforeAll(async () => {
    // Widened as src/ingress/http-app.ts does: fastify's instance type then matches its plugins' and hooks'.
    const logger: FastifyBaseLogger = createLogger('info', {
      write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>),
    });
    app = fastify({
      loggerInstance: logger,
      logController: new LogController({ disableRequestLogging: true }),
    });
    installErrorHandling(app);
    app.get('/refused', () => Promise.reject(transportError('ECONNREFUSED')));
    app.get('/throttled', () => Promise.reject(apiAnswer(429)));
    app.get('/bug', () => Promise.reject(new TypeError('x is not a function')));
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
  });

  it('answers 503 with Retry-After and logs a warn line with the reason, not the address', async () => {
    const res = await app.inject({ method: 'GET', url: '/refused', headers: { host: 'gw' } });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.json()).toEqual({ code: 'Unavailable', message: ErrorCodes.Unavailable.message });
    expect(res.body).not.toContain('10.0.0.7');
    const line = lines.find((l) => l.route === '/refused');
    expect(line).toMatchObject({
      level: 40,
      msg: 'request failed: a Kubernetes API is unavailable',
      reason: 'Unavailable',
      detail: 'the cluster is unreachable (ECONNREFUSED)',
    });
    expect(JSON.stringify(line)).not.toContain('10.0.0.7');
  });

  it('says which answer the API server gave', async () => {
    const res = await app.inject({ method: 'GET', url: '/throttled', headers: { host: 'gw' } });
    expect(res.statusCode).toBe(503);
    expect(lines.find((l) => l.route === '/throttled')).toMatchObject({
      level: 40,
      reason: 'Unavailable',
      status: 429,
    });
  });

  it('keeps a bug a 500 Internal, logged at error', async () => {
    const res = await app.inject({ method: 'GET', url: '/bug', headers: { host: 'gw' } });
    expect(res.statusCode).toBe(500);
    expect(res.headers['retry-after']).toBeUndefined();
    expect(res.json()).toEqual({ code: 'Internal', message: ErrorCodes.Internal.message });
    expect(lines.find((l) => l.route === '/bug')).toMatchObject({
      level: 50,
      msg: 'request failed',
      reason: 'Internal',
    });
  });
});
